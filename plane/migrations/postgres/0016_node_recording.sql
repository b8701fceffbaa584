-- Whether a node's panes are recorded (their output's timing kept beside their log), set by an
-- administrator per node; the plane's own setting (`--recording`) still turns it off for all.
ALTER TABLE nodes ADD COLUMN recording BIGINT NOT NULL DEFAULT 1;
