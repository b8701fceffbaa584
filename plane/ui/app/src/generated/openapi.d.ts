// The REST API's types, generated from the plane's OpenAPI document by openapi-typescript.
// Do not edit: regenerate with `cargo build -p termplane && npm run --prefix plane/ui api-types`.
// The app names its types through types.ts and calls the API through api.ts.

export interface paths {
    "/api/admin/deployment": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * How the plane is deployed: listen addresses, base URL, data directory, database, trusted origins and the node binaries it serves
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        get: operations["adminDeployment"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The plane's version, uptime and database, nodes by liveness and version, held nodes and subshells by state
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        get: operations["adminStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/updates/held": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Nodes held for an update (refused by a gate) and nodes below the version floor
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        get: operations["heldNodes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/updates/nodes/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Update one node to the plane's version with the binary the plane serves; the node verifies it, installs it and restarts (it comes back online on the new version)
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        post: operations["updateNode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/updates/outdated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Update every remote node below the plane's version (held ones included), one after the other, reporting each node's outcome
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        post: operations["updateOutdatedNodes"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Audit entries, newest first, filtered by actor, actor kind, action, target and time; page with `before` (the last entry's `id`)
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        get: operations["auditLog"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/passkey/finish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Finish signing in with a passkey; sets the session cookie
         * @description Authentication: No credential.
         */
        post: operations["finishPasskeySignIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/passkey/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start signing in with a passkey: WebAuthn request options for `navigator.credentials.get` (an unknown account gets options of the same shape)
         * @description Authentication: No credential.
         */
        post: operations["startPasskeySignIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/passkeys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The signed-in account's passkeys
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        get: operations["listPasskeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/passkeys/register/finish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Finish registering: verify the browser's new credential and keep it
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        post: operations["finishPasskeyRegistration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/passkeys/register/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start registering a passkey on the signed-in account: WebAuthn creation options for `navigator.credentials.create`
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        post: operations["startPasskeyRegistration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/passkeys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove one of the signed-in account's passkeys
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        delete: operations["deletePasskey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change your own password (the current one is checked); your other sessions end unless `signOutOthers` is false
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        post: operations["changePassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The calling account
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        get: operations["session"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/sign-in": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign in with a password; sets the session cookie
         * @description Authentication: No credential.
         */
        post: operations["signIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/sign-out": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Destroy the session and clear its cookie
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        post: operations["signOut"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/ws-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mint a 30-second single-use attach token for the terminal WebSocket (a bearer names one subshell; a pane's token only its own)
         * @description A browser session's token reaches what the session reaches: unbound without `subshellId` (any pane the account may attach, and the live feed), bound to one pane with it. A bearer credential's token is always bound to one pane: a system key names any subshell, a pane's token only its own, and a bearer request without `subshellId` is refused with 403 `PERMISSION_DENIED`.
         *
         *     Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        post: operations["mintWsToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channels": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The channels you own or are a member of, with your access and their heads
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        get: operations["listChannels"];
        put?: never;
        /**
         * Make a channel (a pane makes one for its owner)
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        post: operations["createChannel"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channels/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One channel
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        get: operations["getChannel"];
        put?: never;
        post?: never;
        /**
         * Delete a channel you own, with its entries
         * @description Authentication: A session cookie or a system key; a subshell's token is refused with 403.
         */
        delete: operations["deleteChannel"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channels/{id}/entries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Entries after a cursor, each checked as it is read; optionally wait for new ones
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        get: operations["listChannelEntries"];
        put?: never;
        /**
         * Append a signed entry at the channel's head
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        post: operations["postChannelEntry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channels/{id}/members": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A channel's owner and members
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        get: operations["listChannelMembers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/channels/{id}/members/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Give an account read or write access to a channel you own
         * @description Authentication: A session cookie or a system key; a subshell's token is refused with 403.
         */
        put: operations["setChannelMember"];
        post?: never;
        /**
         * Remove a member from a channel you own, or leave one
         * @description Authentication: A session cookie or a system key; a subshell's token is refused with 403.
         */
        delete: operations["removeChannelMember"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/devices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Your push devices
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        get: operations["listDevices"];
        put?: never;
        /**
         * Register a browser's push subscription (the same endpoint again replaces its keys)
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        post: operations["addDevice"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/devices/vapid": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The plane's VAPID public key (the Push API's `applicationServerKey`)
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        get: operations["vapidKey"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/devices/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a push device
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        delete: operations["deleteDevice"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/downloads/node/{platform}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The node binary for a platform (`linux-x86_64`, …), with `X-Content-SHA256`
         * @description Authentication: No credential.
         */
        get: operations["downloadNode"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/files": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Your kept files, newest first
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        get: operations["listFiles"];
        put?: never;
        /**
         * Start uploading a file to keep (at most 64 MiB; 1 GiB per account)
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        post: operations["startFile"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/files/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One kept file
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        get: operations["getFile"];
        put?: never;
        post?: never;
        /**
         * Delete a kept file, or abandon its upload
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        delete: operations["deleteFile"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/files/{id}/bytes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A byte range of a kept file, base64 in JSON (`fromByte`, `maxBytes` up to 1 MiB)
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        get: operations["readFileBytes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/files/{id}/content": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A kept file's bytes (`Content-Disposition: attachment` with its name)
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        get: operations["downloadFile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/files/{id}/pieces/{index}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Send the next piece of an upload; the last one keeps the file
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        put: operations["putFilePiece"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/files/{id}/send": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Write a kept file into a pane's working directory on its node
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        post: operations["sendFile"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/identities": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Your identities (a pane: the ones its token registered)
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        get: operations["listIdentities"];
        put?: never;
        /**
         * Register a public key you hold as an identity, with a proof that you hold it
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        post: operations["registerIdentity"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/identities/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Any identity: its public key and thumbprint, to verify entries with
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        get: operations["getIdentity"];
        put?: never;
        post?: never;
        /**
         * Revoke an identity you (or your pane) hold; its entries keep verifying
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        delete: operations["revokeIdentity"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/network": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The extra addresses the plane listens on, and whether each listens
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        get: operations["listNetworkPlugins"];
        put?: never;
        /**
         * Listen on one more address now (and at every start); its origin is trusted while it listens
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        post: operations["addNetworkPlugin"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/network/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Stop listening on an extra address and forget it
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        delete: operations["deleteNetworkPlugin"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/nodes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the caller's nodes and the local node (a pane's token: its owner's, each with whether the pane may launch there)
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        get: operations["listNodes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/nodes/enroll": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Enroll a node with a setup key
         * @description Authentication: The setup key (`nsk_…`) in the body is the credential; it is spent by a successful enrollment.
         */
        post: operations["enrollNode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/nodes/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One node
         * @description Its owner and administrators see a node; every signed-in account sees the local node (the plane's own host), which belongs to the administrators: seeing it is not managing it.
         *
         *     Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        get: operations["getNode"];
        put?: never;
        post?: never;
        /**
         * Delete a node; refused while subshells on it are live
         * @description By its owner or an administrator. The local node cannot be deleted (403 `LOCAL_NODE`; 403 `ADMIN_REQUIRED` for a person who is not an administrator).
         *
         *     Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        delete: operations["deleteNode"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/nodes/{id}/allowed_dirs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Replace a node's allowed directories
         * @description By its owner or an administrator. The local node's list confines the panes of the plane's own host: only an administrator changes it (403 `ADMIN_REQUIRED` for anyone else, and nothing changes).
         *
         *     Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        put: operations["setAllowedDirs"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/nodes/{id}/commands": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Admin and debug surface: send one node command (through the link, or to the plane's own executor for the local node) and answer its result
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        post: operations["sendNodeCommand"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/nodes/{id}/dirs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The subdirectories of one directory of a node (its home when no path is given), within the node's allowed directories: a folder picker's listing
         * @description Authentication: A session cookie or a system key; a subshell's token is refused with 403.
         */
        get: operations["nodeDirs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/nodes/{id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Recent events the node sent on its own (`?after=N&waitMs=M` long-polls up to 25 s)
         * @description By its owner or an administrator. The events name every pane of the node, whoever owns it: the local node's are an administrator's to read (403 `ADMIN_REQUIRED` for anyone else).
         *
         *     Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        get: operations["nodeEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/nodes/{id}/harnesses": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Every harness as a node has it, and whether it can be launched there (detects when asked or when the last answer is older than ten minutes)
         * @description Authentication: A session cookie or a system key; a subshell's token is refused with 403.
         */
        get: operations["nodeHarnesses"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/nodes/{id}/key_rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue a new node key; the old one stops working
         * @description By its owner or an administrator. The local node has no node key (403 `LOCAL_NODE`; 403 `ADMIN_REQUIRED` for a person who is not an administrator).
         *
         *     Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        post: operations["rotateNodeKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/nodes/{id}/maintenance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Set a node's maintenance mirror and push it to the node when it is online
         * @description By its owner or an administrator. The local node has no maintenance mirror (403 `LOCAL_NODE`; 403 `ADMIN_REQUIRED` for a person who is not an administrator).
         *
         *     Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        put: operations["setNodeMaintenance"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/nodes/{id}/ping": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send `ping` through the node link and report the round trip
         * @description By its owner or an administrator; on the local node, by an administrator (403 `ADMIN_REQUIRED` for anyone else).
         *
         *     Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        post: operations["pingNode"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/nodes/{id}/recording": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Record a node's panes or stop recording them (from their next launch or restart), and set how long their recordings are kept
         * @description On by default. Off, the node's panes launched or restarted from then on are logged with no timing: their export is their log, untimed. The plane's own `--recording off`, and a workspace's own setting, turn recording off whatever this says. `retentionDays`: what the node's panes printed longer ago than that is deleted from their recordings (and their input marks with it), within the hour; absent, the plane's `--recording-retention-days`; a workspace's own retention wins for its panes. The local node's too. Audited as `node.recording_set`.
         *
         *     Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        put: operations["setNodeRecording"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/nodes/{id}/system-access": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Let scripts (system keys) launch subshells on a node, or stop letting them
         * @description The local node is always open to scripts: setting its access, either way, is refused with 403 `LOCAL_NODE` (as its deletion and key rotation are) and nothing changes.
         *
         *     Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        put: operations["setNodeSystemAccess"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/notifications": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Your notifications, newest first (`unread`, `before` cursor, `limit`)
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        get: operations["listNotifications"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/notifications/mutes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The panes whose notifications you muted
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        get: operations["listMutes"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/notifications/mutes/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Mute the notifications of one of your own panes (`until`, or until you unmute it)
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        put: operations["mutePane"];
        post?: never;
        /**
         * Unmute a pane's notifications
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        delete: operations["unmutePane"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/notifications/preferences": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What you are notified about
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        get: operations["notificationPreferences"];
        /**
         * Choose what you are notified about
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        put: operations["setNotificationPreferences"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/notifications/read-all": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mark every notification read
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        post: operations["markAllNotificationsRead"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/notifications/unread": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * How many of your notifications are unread
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        get: operations["unreadNotificationCount"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/notifications/{id}/read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Mark one notification read
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        post: operations["markNotificationRead"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This OpenAPI 3.1 document
         * @description Authentication: No credential.
         */
        get: operations["openApiDocument"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugins": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The harness plugins, with whether each is enabled
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        get: operations["listPlugins"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plugins/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Turn a plugin on or off
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        put: operations["setPluginEnabled"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/presets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's presets
         * @description Authentication: A session cookie or a system key; a subshell's token is refused with 403.
         */
        get: operations["listPresets"];
        put?: never;
        /**
         * Create a preset
         * @description Authentication: A session cookie or a system key; a subshell's token is refused with 403.
         */
        post: operations["createPreset"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/presets/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One preset
         * @description Authentication: A session cookie or a system key; a subshell's token is refused with 403.
         */
        get: operations["getPreset"];
        /**
         * Replace a preset's fields
         * @description Authentication: A session cookie or a system key; a subshell's token is refused with 403.
         */
        put: operations["updatePreset"];
        post?: never;
        /**
         * Delete a preset (subshells launched with it keep what they had)
         * @description Authentication: A session cookie or a system key; a subshell's token is refused with 403.
         */
        delete: operations["deletePreset"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/settings/instance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The instance's display name
         * @description Authentication: No credential.
         */
        get: operations["instanceSettings"];
        /**
         * Rename the instance
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        put: operations["renameInstance"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/settings/public": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Settings any signed-in caller may read
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        get: operations["publicSettings"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/settings/trusted-origins": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The trusted origins: configured ones and ones administrators added
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        get: operations["trustedOrigins"];
        /**
         * Replace the origins administrators added to the trusted list
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        put: operations["setTrustedOrigins"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/setup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create the first (administrator) account
         * @description Authentication: No credential.
         */
        post: operations["setup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/setup-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List setup keys (an administrator sees all)
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        get: operations["listSetupKeys"];
        put?: never;
        /**
         * Mint a single-use setup key valid for 24 hours, with the commands that add a node with it (`install`: the one `curl … /install.sh | sh` command and the same in steps)
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        post: operations["createSetupKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/setup-keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an unused setup key
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        delete: operations["revokeSetupKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/setup/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Whether the first account exists
         * @description Authentication: No credential.
         */
        get: operations["setupStatus"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/subshells": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's subshells (an administrator's session: every one), newest first
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        get: operations["listSubshells"];
        put?: never;
        /**
         * Launch a harness in a pane on a node (a launch the node refuses leaves nothing behind)
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        post: operations["launchSubshell"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/subshells/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One subshell
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        get: operations["getSubshell"];
        put?: never;
        post?: never;
        /**
         * Delete a subshell: a live pane is killed, its token revoked, its row removed (a pane on a node out of reach, or whose node answers the kill too late, is killed when that node answers)
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        delete: operations["deleteSubshell"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/subshells/{id}/attention": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The pane reports that it needs input, is done, or neither (its own token only)
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        post: operations["reportAttention"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/subshells/{id}/ended": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The subshell once its pane has ended, waiting up to `waitMs` (default and at most 25000) for that; at the deadline, as it is then
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        get: operations["waitSubshellEnded"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/subshells/{id}/input": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Type text (a long paste goes in pieces, in order) and press named keys
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        post: operations["subshellInput"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/subshells/{id}/keepalive": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The pane's MCP child is alive: its token lives seven more days (its own token only)
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        post: operations["keepSubshellTokenAlive"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/subshells/{id}/kill": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Hard stop: the pane is killed and the token revoked
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        post: operations["killSubshell"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/subshells/{id}/logs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A byte range of the pane's log (everything it printed)
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        get: operations["subshellLogs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/subshells/{id}/recording/cast": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The pane's whole recording (everything it printed, when, and on what grid) as an asciicast v2 file, for `asciinema play` and other players; a log over 16 MiB is refused
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        get: operations["subshellRecordingCast"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/subshells/{id}/recording/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The pane's launches, restarts, stops and its agent's state changes, oldest first, for the recording's timeline
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        get: operations["subshellRecordingEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/subshells/{id}/recording/inputs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Who put input into the pane and when — typed in a terminal, pasted, sent through the API, uploaded — oldest first, for the recording's playback; what was typed is not kept
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        get: operations["subshellRecordingInputs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/subshells/{id}/resize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Set the pane's grid (while no viewer that takes part in sizing is attached)
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        post: operations["resizeSubshell"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/subshells/{id}/restart": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Relaunch: a live pane is killed first; the token is replaced (the old one stops working)
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        post: operations["restartSubshell"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/subshells/{id}/screen": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The pane's text as it shows now (with `lines` of history above it)
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        get: operations["subshellScreen"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/subshells/{id}/session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * The pane reports its harness's own session id, for resuming (its own token only)
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        put: operations["reportSession"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/subshells/{id}/shares": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The accounts a subshell is shared with (its owner or an administrator)
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        get: operations["listShares"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/subshells/{id}/shares/{userId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Share a subshell with an account for reading or writing, or change the access (open sockets of that account on the pane close with 4403 when it changes)
         * @description `read` lets the account watch the pane: attach read-only, read its row, screen and logs; it types nothing.
         *
         *     `write` also lets it type into the pane, and typing into a shell is full control of that pane: whoever types can make it print its own token (`TERMPLANE_TOKEN`), read the token off the screen, and then do anything the token can, as the pane's owner, within the pane's permission ceiling, from anywhere, until the pane is restarted or terminated. With the default ceiling (`channels: write`, `subshells: read`) that is reading every subshell of the owner (screens and logs of all of them, not only this one) and reading and posting to every channel the owner reaches; a pane launched with `subshells: write` gives also typing into, restarting, stopping and launching the owner's subshells. Share `write` only with someone you would trust with all of that; revoking the share closes their sockets but does not take back a token they read: restart the pane for that.
         *
         *     Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        put: operations["putShare"];
        post?: never;
        /**
         * Revoke a share; that account's sockets on the pane close with 4403
         * @description Authentication: A session cookie only; a bearer credential is refused with 403.
         */
        delete: operations["deleteShare"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/subshells/{id}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The pane reports what its agent is doing: working, idle, needs input, done or error, with a summary and a link, from its harness's hook or the agent itself (its own token only)
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        post: operations["reportStatus"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/subshells/{id}/terminate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Graceful stop: the token is revoked at once, Ctrl-C is typed, and the pane is killed when the grace ends; a kill during the grace finishes the stop, a restart during it supersedes the stop (409 INVALID_STATE)
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        post: operations["terminateSubshell"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/system-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List system keys (never the secret)
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        get: operations["listSystemKeys"];
        put?: never;
        /**
         * Mint a system key; its plaintext is in this answer only
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        post: operations["createSystemKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/system-keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete a system key
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        delete: operations["deleteSystemKey"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/system-keys/{id}/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Disable a system key
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        post: operations["disableSystemKey"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/uploads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start an upload of a file (at most 64 MiB) into a pane's working directory
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        post: operations["startUpload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/uploads/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An upload's progress
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        get: operations["getUpload"];
        put?: never;
        post?: never;
        /**
         * Abandon an upload; the partial file on the node is removed
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        delete: operations["cancelUpload"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/uploads/{id}/pieces/{index}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Send the next piece of an upload (in order; the last one puts the file in place)
         * @description Authentication: A session cookie, a system key, or a subshell's token within its permission map on its owner's subshells.
         */
        put: operations["uploadPiece"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List accounts
         * @description Authentication: Any credential: a session cookie, a system key or a subshell's token.
         */
        get: operations["listUsers"];
        put?: never;
        /**
         * Create an account
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        post: operations["createUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Delete an account: its sessions, passkeys, presets, workspaces and shares go with it; refused for the last administrator, for oneself and while its subshells run
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        delete: operations["deleteUser"];
        options?: never;
        head?: never;
        /**
         * Change an account's role or display name (the last enabled administrator cannot be demoted)
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        patch: operations["updateUser"];
        trace?: never;
    };
    "/api/users/{id}/disable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Disable an account (its sessions end at once)
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        post: operations["disableUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users/{id}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Enable an account
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        post: operations["enableUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/users/{id}/password": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Set another account's password; every session of that account ends
         * @description Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        post: operations["resetPassword"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's workspaces
         * @description Authentication: A session cookie or a system key; a subshell's token is refused with 403.
         */
        get: operations["listWorkspaces"];
        put?: never;
        /**
         * Name a directory on a node the caller may launch on
         * @description Authentication: A session cookie or a system key; a subshell's token is refused with 403.
         */
        post: operations["createWorkspace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One workspace
         * @description Authentication: A session cookie or a system key; a subshell's token is refused with 403.
         */
        get: operations["getWorkspace"];
        /**
         * Replace a workspace's fields
         * @description Authentication: A session cookie or a system key; a subshell's token is refused with 403.
         */
        put: operations["updateWorkspace"];
        post?: never;
        /**
         * Delete a workspace
         * @description Authentication: A session cookie or a system key; a subshell's token is refused with 403.
         */
        delete: operations["deleteWorkspace"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/workspaces/{id}/recording": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Record a workspace's panes or stop recording them (from their next launch or restart), and set how long their recordings are kept
         * @description An administrator's, for any account's workspace (a subshell's `workspaceId` names it). On by default; off, the workspace's panes launched or restarted from then on are logged with no timing, whatever their node says. `retentionDays` wins over their node's; absent, theirs applies. Audited as `workspace.recording_set`.
         *
         *     Authentication: An administrator's session cookie only; a bearer credential is refused with 403, even an administrator's.
         */
        put: operations["setWorkspaceRecording"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description One permission of a pane's token. */
        Access: "read" | "write";
        /** @description Who acted. */
        ActorKind: "cookie" | "system_key" | "setup_key" | "pane" | "plane";
        /** @description `GET /api/admin/status`. */
        AdminStatus: {
            /** @description `sqlite` or `postgres`. */
            database: string;
            /**
             * Format: int64
             * @description The database's size in bytes, when the backend tells.
             */
            databaseBytes: number | null;
            /**
             * Format: uint64
             * @description Nodes held for an update right now.
             */
            heldNodes: number;
            /** @description Whether the local node runs panes (tmux found, not turned off). */
            localNode: boolean;
            /** @description Remote nodes by liveness (`online`, `offline`, `held`); the local node is not counted. */
            nodesByLiveness: {
                [key: string]: number;
            };
            /** @description Remote nodes by the version they last reported. */
            nodesByVersion: {
                [key: string]: number;
            };
            /** @description Subshells by state. */
            subshellsByState: {
                [key: string]: number;
            };
            /**
             * Format: int64
             * @description Seconds since the plane started.
             */
            uptimeSecs: number;
            /** @description The plane's version. */
            version: string;
        };
        /** @description The signal that set an agent's state. */
        AgentSource: "lifecycle" | "hook" | "self_report" | "screen" | "none";
        /**
         * @description What the agent in a pane is doing (see `service::subshells::agent` for which signal sets
         *     which state, and how a pane's lifecycle decides it once the pane has ended).
         */
        AgentState: "starting" | "working" | "idle" | "needs_input" | "done" | "error" | "unknown";
        /** @description What the agent in a pane is doing, as the API shows it. */
        AgentStatus: {
            /** @description A link the agent gave (a pull request, a preview…): `http` or `https` only. */
            link: string | null;
            /**
             * Format: int64
             * @description When it entered that state (ms).
             */
            since: number;
            /** @description The signal that set it. */
            source: components["schemas"]["AgentSource"];
            /** @description The state. */
            state: components["schemas"]["AgentState"];
            /** @description A one-line summary of what it is doing or why it stopped. */
            summary: string | null;
        };
        /** @description `PUT /api/nodes/{id}/allowed_dirs`. */
        AllowedDirsRequest: {
            /** @description The new list (at most 64 absolute paths); empty means unrestricted. */
            allowedDirs: string[];
        };
        /** @description What a harness last said about needing a person. */
        Attention: "none" | "needs_input" | "done";
        /** @description `POST /api/subshells/{id}/attention` (the pane's own token only). */
        AttentionRequest: {
            /** @description `needs_input`, `done`, or `none` to clear. */
            attention: components["schemas"]["Attention"];
        };
        /** @description One audit entry. */
        AuditEntry: {
            /** @description What happened (`system_key.created`, `node.enrolled`, …). */
            action: string;
            /** @description Who acted. */
            actorKind: components["schemas"]["ActorKind"];
            /** @description The acting account, if any. */
            actorUserId: string | null;
            /**
             * Format: int64
             * @description When (milliseconds since the Unix epoch).
             */
            at: number;
            /** @description Extra facts (never a secret). */
            detail: unknown;
            /**
             * Format: int64
             * @description Sequence number.
             */
            id: number;
            /** @description The row acted on. */
            target: string | null;
        };
        /** @description Who wrote an entry. */
        Author: {
            /** @description The identity's name. */
            name: string;
            /** @description Its pane, when a pane wrote it. */
            subshellId: string | null;
            /** @description The identity's thumbprint. */
            thumbprint: string;
            /** @description Its account, if it still exists. */
            userId: string | null;
        };
        /** @description A node whose stored version is below the floor. */
        BelowFloorNode: {
            /** @description The version the node last reported. */
            agentVersion: string;
            /** @description Name. */
            name: string;
            /** @description Node id. */
            nodeId: string;
        };
        /** @description `POST /api/auth/password`: the signed-in account changes its own password. */
        ChangePasswordRequest: {
            /** @description The password now. */
            currentPassword: string;
            /** @description The new one (8 to 1024 characters). */
            newPassword: string;
            /**
             * @description End the account's other sessions too (default true); this session stays.
             * @default null
             */
            signOutOthers?: boolean | null;
        };
        /** @description A channel. */
        Channel: {
            /** @description What the caller may do: `read`, or `write` (read and post). */
            access: components["schemas"]["Access"];
            /**
             * Format: int64
             * @description When it was made (ms since the Unix epoch).
             */
            createdAt: number;
            /** @description What it is for. */
            description: string;
            /** @description Its newest entry. */
            head: components["schemas"]["Head"];
            /** @description Its id. */
            id: string;
            /** @description Its name. */
            name: string;
            /** @description The account that owns it. */
            ownerUserId: string;
        };
        /** @description `POST /api/channels`. */
        CreateChannel: {
            /**
             * @description What it is for.
             * @default null
             */
            description?: string | null;
            /** @description Its name (`release-1.4`, `db-migration notes`). */
            name: string;
        };
        /** @description `POST /api/system-keys`. */
        CreateSystemKeyRequest: {
            /** @description A name to recognise the key by. */
            name: string;
        };
        /** @description `POST /api/users`. */
        CreateUserRequest: {
            /** @description Display name. */
            displayName: string;
            /**
             * Format: email
             * @description The new account's email.
             */
            email: string;
            /** @description Initial password (8 to 1024 characters). */
            password: string;
            /**
             * @description Role (default `user`).
             * @default user
             */
            role?: components["schemas"]["GrantableRole"];
        };
        /** @description Who started a subshell. */
        CreatedBy: "cookie" | "system_key" | "pane";
        /** @description The `crv` of a P-256 JWK. */
        Crv: "P-256";
        /** @description `GET /api/admin/deployment`. */
        Deployment: {
            /** @description The address it says it lives at (`APP_BASE_URL`). */
            baseUrl: string;
            /** @description Its data directory. */
            dataDir: string | null;
            /** @description `sqlite` or `postgres`. */
            database: string;
            /** @description The addresses it listens on. */
            listen: string[];
            /** @description The node binaries served at `/api/downloads/node/{platform}`. */
            nodeDownloads: components["schemas"]["NodeDownload"][];
            /** @description Every origin a browser may send state-changing requests from. */
            trustedOrigins: string[];
            /** @description The plane's version. */
            version: string;
        };
        /** @description One detection rule of `detect`. */
        DetectRule: {
            /** @description Harness the rule belongs to. */
            harnessId: string;
            /** @description Lookup rule for the binary. */
            resolve: components["schemas"]["Resolve"];
            /**
             * @description Arguments that make the binary print its version (e.g. `["--version"]`).
             * @default []
             */
            versionArgs?: string[];
        };
        /** @description How the node finds a harness's binary. */
        Detection: {
            /** @description The binary's name, looked up on the node's `PATH`. */
            binaryName: string;
            /** @description An environment variable of the node that names the binary instead, when set. */
            envOverride: string | null;
            /** @description Places looked at after `PATH` (`~` is the node's home). */
            knownPaths: string[];
            /** @description Arguments that make the binary print its version. */
            versionArgs: string[];
        };
        /** @description A registered device. */
        Device: {
            /**
             * Format: int64
             * @description When it was added (ms since the Unix epoch).
             */
            createdAt: number;
            /** @description Its id. */
            id: string;
            /** @description The last delivery failure, when the last attempt failed. */
            lastError: string | null;
            /**
             * Format: int64
             * @description When a push last reached its push service.
             */
            lastSentAt: number | null;
            /** @description Its name. */
            name: string;
            /** @description Its push service's origin (the full endpoint is a secret of the subscription). */
            pushService: string;
        };
        /** @description A subscription's keys, base64url as the browser gives them. */
        DeviceKeys: {
            /** @description The 16-byte authentication secret (base64url). */
            auth: string;
            /** @description The P-256 public key (an uncompressed point, 65 bytes, base64url). */
            p256dh: string;
        };
        /** @description `POST /api/devices`: a browser's `PushSubscription` (its `toJSON()`), and a name. */
        DeviceRequest: {
            /** @description The push service's URL for this subscription. */
            endpoint: components["schemas"]["PushEndpoint"];
            /**
             * @description When the subscription expires (ms), as the browser says; not used.
             * @default null
             */
            expirationTime?: unknown;
            /** @description The subscription's keys. */
            keys: components["schemas"]["DeviceKeys"];
            /** @description A name to tell it from the account's other devices. */
            name: string;
        };
        /** @description One directory on a node. */
        DirEntry: {
            /** @description Its name (not a path). */
            name: string;
        };
        /** @description `GET /api/nodes/{id}/dirs`: the directories in one directory of a node, for a folder picker. */
        DirListing: {
            /** @description Its subdirectories, by name, sorted (the node leaves hidden ones out). */
            entries: components["schemas"]["DirEntry"][];
            /** @description The directory listed (absolute). */
            path: string;
            /** @description Whether the node stopped at its entry limit. */
            truncated: boolean;
        };
        /** @description An empty object (answers and bodies with no fields). */
        Empty: Record<string, never>;
        /** @description `POST /api/nodes/enroll`: a node enrolls with a single-use setup key. */
        EnrollRequest: {
            /** @description Version of the node daemon. */
            agentVersion: string;
            /** @description CPU architecture. */
            arch: string;
            /**
             * @description The node's long-term X25519 link public key; without it the row starts unpaired (the node
             *     registers its key on its first connection). All-zero and low-order keys are refused.
             * @default null
             */
            encryptPublicKey?: string | null;
            /** @description Host name. */
            hostname: string;
            /** @description The node's P-256 identity public key. */
            identityJwk: components["schemas"]["Jwk"];
            /** @description The node's name (at most 64 characters). */
            name: string;
            /** @description The node's operating system. */
            os: components["schemas"]["Os"];
            /** @description The setup key: the credential of this route, spent by a successful enrollment. */
            setupKey: string;
        };
        /** @description `POST /api/nodes/enroll` answer. */
        Enrolled: {
            /** @description The plane's X25519 link public key. */
            controlEncryptPublicKey: string;
            /**
             * @description The name the node was given: the one asked for, or when another node of the same owner
             *     already has it, that name with the first free number (`host-2`, `host-3`…).
             */
            name: string;
            /** @description The new node's id. */
            nodeId: string;
            /** @description The node key (`tp_…`): shown in this answer only; it opens `/ws/node` and nothing else. */
            nodeKey: string;
            /** @description The plane's command-signing public key. */
            signingPublicJwk: components["schemas"]["Jwk"];
            /** @description The full address of the node WebSocket (`ws://…/ws/node` or `wss://…/ws/node`). */
            wsUrl: string;
        };
        /** @description One entry, as read (see the module documentation for `verified`). */
        Entry: {
            /** @description Who wrote it. */
            author: components["schemas"]["Author"];
            /** @description The text (absent when it could not be decrypted). */
            body: string | null;
            /** @description The channel. */
            channelId: string;
            /**
             * Format: int64
             * @description When the plane took it (ms since the Unix epoch).
             */
            createdAt: number;
            /** @description Its hash. */
            hash: string;
            /** @description The identity that signed it. */
            identityId: string;
            /** @description The hash of the entry before it. */
            prev: string;
            /**
             * @description The first check that failed: `UNREADABLE` (the body does not decrypt), `HASH` (the hash
             *     is not the signing input's), `SIGNATURE`, or `CHAIN` (`prev` is not the previous entry's
             *     hash, or an entry before it is missing).
             */
            problem: string | null;
            /**
             * Format: int64
             * @description Its position: 1, 2, 3…
             */
            seq: number;
            /** @description Its ES256 signature. */
            signature: string;
            /** @description Whether every check held. */
            verified: boolean;
        };
        /** @description An entry's body: any Unicode text of 1 to 16,384 characters (newlines and all). */
        EntryBody: string;
        /** @description A page of entries. */
        EntryPage: {
            /** @description The entries, oldest first. */
            entries: components["schemas"]["Entry"][];
            /** @description The channel's newest entry. */
            head: components["schemas"]["Head"];
            /**
             * Format: int64
             * @description The cursor for the next page (`after`): the last `seq` here, or the `after` asked for.
             */
            next: number;
        };
        /** @description The body of every failed request. Clients branch on `code`, never on `message`; responses may carry additional fields. */
        Error: {
            /**
             * @description Machine-readable code.
             * @enum {string}
             */
            code: "INPUT_VALIDATION_ERROR" | "BAD_REQUEST" | "WEBSOCKET_UPGRADE_REQUIRED" | "UNAUTHENTICATED" | "AUTH_HEADER_INVALID" | "INVALID_CREDENTIAL" | "NODE_KEY_NOT_ACCEPTED" | "NODE_KEY_MISSING" | "NODE_KEY_INVALID" | "NODE_KEY_WRONG_KIND" | "NODE_KEY_DISABLED" | "ATTACH_TOKEN_INVALID" | "INVALID_CREDENTIALS" | "SETUP_KEY_INVALID" | "SETUP_KEY_EXPIRED" | "SETUP_KEY_REVOKED" | "SETUP_KEY_SPENT" | "SETUP_KEY_NOT_REVOCABLE" | "NODE_KEY_UNBOUND" | "BEARER_NOT_ALLOWED" | "ADMIN_REQUIRED" | "SYSTEM_KEY_REQUIRED" | "PANE_TOKEN_NOT_ALLOWED" | "PERMISSION_DENIED" | "ATTACH_TOKEN_BOUND" | "NOT_OWN_SUBSHELL" | "NODE_NOT_ALLOWED" | "ORIGIN_REJECTED" | "LOCAL_NODE" | "NOT_FOUND" | "METHOD_NOT_ALLOWED" | "REQUEST_TIMEOUT" | "SETUP_ALREADY_DONE" | "EMAIL_TAKEN" | "CANNOT_DISABLE_SELF" | "LAST_ADMIN" | "NODE_HAS_LIVE_SUBSHELLS" | "USER_HAS_LIVE_SUBSHELLS" | "CURRENT_PASSWORD_WRONG" | "NODE_OFFLINE" | "PLUGIN_DISABLED" | "HARNESS_NOT_INSTALLED" | "INVALID_STATE" | "SUBSHELL_NOT_RUNNING" | "STALE_REPORT" | "GRID_HELD" | "UPLOAD_EXISTS" | "UPLOADS_BUSY" | "QUOTA_EXCEEDED" | "UPLOAD_ABANDONED" | "NODE_REFUSED" | "RECORDING_UNSUPPORTED" | "REFERENCE_MISMATCH" | "PAYLOAD_TOO_LARGE" | "COMMAND_TOO_LARGE" | "RECORDING_TOO_LARGE" | "URI_TOO_LONG" | "EXPECTATION_FAILED" | "TOO_MANY_ATTEMPTS" | "TOO_MANY_REPORTS" | "TOO_MANY_SOCKETS" | "PASSKEY_CEREMONY_INVALID" | "PASSKEY_REJECTED" | "PASSKEY_EXISTS" | "NETWORK_BIND_FAILED" | "DEVICE_LIMIT" | "PASSKEY_LIMIT" | "PASSKEYS_UNAVAILABLE" | "SIGNATURE_INVALID" | "IDENTITY_NOT_YOURS" | "IDENTITY_EXISTS" | "IDENTITY_REVOKED" | "CHANNEL_HEAD_MOVED" | "CHANNEL_LIMIT" | "IDENTITY_LIMIT" | "HEADERS_TOO_LARGE" | "LAUNCH_REFUSED" | "INTERNAL_ERROR" | "NOT_IMPLEMENTED" | "NODE_LINK_CLOSED" | "NODE_BAD_RESULT" | "PANE_UNREADABLE" | "SHUTTING_DOWN" | "DATABASE_UNAVAILABLE" | "PLANE_BUSY" | "NODE_TIMEOUT" | "HTTP_VERSION_NOT_SUPPORTED" | "STORAGE_FULL";
            /** @description Unique per occurrence; matches the server's log entry. */
            errId: string;
            /** @description Prose; may change. */
            message: string;
            /** @description Extra facts when any: `field` for validation errors, `retryAfterMs` with 429. */
            metadata?: {
                [key: string]: unknown;
            };
            /** @description The request id (also in `X-Request-Id`), when known. */
            reqId?: string;
            /** @description Mirrors the HTTP status. */
            statusCode: number;
        };
        /**
         * @description `GET /api/files/{id}/bytes` answer: a byte range of a kept file, for a client that reads
         *     JSON only (a pane's MCP server).
         */
        FileBytes: {
            /** @description The bytes, base64 (standard alphabet, padded). */
            dataB64: string;
            /**
             * Format: uint64
             * @description The first byte returned.
             */
            fromByte: number;
            /** @description The file's name. */
            name: string;
            /**
             * Format: uint64
             * @description The file's size.
             */
            size: number;
            /**
             * Format: uint64
             * @description One past the last byte returned.
             */
            toByte: number;
        };
        /** @description `POST /api/files`. */
        FileStart: {
            /** @description The file's name. */
            name: string;
            /**
             * Format: uint64
             * @description Its size in bytes (0 to 64 MiB).
             */
            size: number;
        };
        /** @description An upload of a file to the plane, in progress or done. */
        FileUpload: {
            /** @description Whether the file is kept. */
            done: boolean;
            /** @description The file's id (its row's, once kept). */
            fileId: string;
            /** @description Its name. */
            name: string;
            /**
             * Format: uint64
             * @description Bytes per piece.
             */
            pieceBytes: number;
            /**
             * Format: uint64
             * @description Pieces in all.
             */
            pieces: number;
            /**
             * Format: uint64
             * @description Bytes received so far.
             */
            received: number;
            /**
             * Format: uint64
             * @description Its size.
             */
            size: number;
        };
        /** @description A role an administrator can give (`service` is the `system` account's alone). */
        GrantableRole: "admin" | "user";
        /** @description A harness as one node has it. */
        HarnessStatus: {
            /** @description Where it is. */
            binaryPath: string | null;
            /**
             * Format: int64
             * @description When the node last looked (ms); `null` when it never did.
             */
            checkedAt: number | null;
            /** @description Whether the plugin is enabled. */
            enabled: boolean;
            /** @description Plugin id. */
            harnessId: string;
            /** @description Whether the node's last detection found the binary. */
            installed: boolean;
            /**
             * @description Whether a launch would pass the gate now (enabled, and found by a detection less than
             *     ten minutes old).
             */
            launchable: boolean;
            /** @description Plugin name. */
            name: string;
            /** @description Why it was not found. */
            reason: string | null;
            /**
             * @description The first line the binary printed when asked for its version, as it printed it
             *     (`GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu)`).
             */
            version: string | null;
            /**
             * @description The version number found in that line (`5.2.15`): the first run of digits with at
             *     least one dot, and a pre-release or build suffix that follows it directly (`1.0.0-rc.1`);
             *     `null` when the line holds none.
             */
            versionNumber: string | null;
            /**
             * @description Why not, when it is not: `plugin_disabled`, `not_detected`, `detection_stale`,
             *     `not_installed`.
             */
            whyNot: string | null;
        };
        /** @description A SHA-256 in lowercase hex. */
        HashText: string;
        /** @description The newest entry of a channel. */
        Head: {
            /** @description Its hash (64 zeros when the channel is empty). */
            hash: string;
            /**
             * Format: int64
             * @description Its `seq` (0 when the channel is empty).
             */
            seq: number;
        };
        /** @description A node held for an update by a live socket. */
        HeldNode: {
            /** @description The version the row holds. */
            agentVersion: string | null;
            /** @description The row's liveness. */
            liveness: components["schemas"]["Liveness"] | null;
            /** @description Name (null when the row is gone). */
            name: string | null;
            /** @description Node id. */
            nodeId: string;
            /** @description Why the node is held (names the required and the found version). */
            reason: string;
        };
        /** @description `GET /api/admin/updates/held` answer. */
        HeldNodes: {
            /** @description Rows below the floor. */
            belowFloor: components["schemas"]["BelowFloorNode"][];
            /** @description Nodes held by a live socket. */
            held: components["schemas"]["HeldNode"][];
            /** @description The version floor. */
            minNodeVersion: string;
        };
        /** @description An identity. */
        Identity: {
            /**
             * Format: int64
             * @description When it was registered (ms since the Unix epoch).
             */
            createdAt: number;
            /** @description Its id. */
            id: string;
            /** @description Its name. */
            name: string;
            /** @description Who holds it. */
            owner: components["schemas"]["IdentityOwner"];
            /** @description Its public key. */
            publicKey: components["schemas"]["Jwk"];
            /**
             * Format: int64
             * @description When it was revoked, if it was.
             */
            revokedAt: number | null;
            /** @description RFC 7638 thumbprint of the public key (pin this). */
            thumbprint: string;
        };
        /** @description Who holds an identity. */
        IdentityOwner: {
            /** @description The pane, when a pane's token registered it. */
            subshellId: string | null;
            /** @description The account (absent once the account is deleted). */
            userId: string | null;
        };
        /** @description `POST /api/subshells/{id}/input` answer. */
        InputDone: {
            /**
             * Format: uint64
             * @description Characters typed.
             */
            chars: number;
            /**
             * Format: uint64
             * @description Keys pressed.
             */
            keys: number;
            /**
             * Format: uint64
             * @description Commands it took (a long paste is split).
             */
            pieces: number;
        };
        /** @description How an input reached a pane (see `GET /api/subshells/{id}/recording/inputs`). */
        InputKind: "typed" | "paste" | "sent" | "upload";
        /** @description Who put input into a pane, how and when — never what: the keys themselves are not kept. */
        InputMark: {
            /**
             * @description The credential it acted with: a browser session (`cookie`), a system key, or a pane's
             *     token (`pane`).
             */
            actorKind: components["schemas"]["ActorKind"];
            /** @description The acting account's display name (absent once it is deleted). */
            actorName: string | null;
            /** @description The acting account (absent once the account is deleted). */
            actorUserId: string | null;
            /**
             * Format: int64
             * @description When the input began (Unix ms, the plane's clock).
             */
            at: number;
            /** @description For an upload: `{ "name": …, "bytes": … }`. */
            detail: unknown;
            /** @description How it came. */
            kind: components["schemas"]["InputKind"];
            /**
             * Format: int64
             * @description When its last key came (Unix ms; `at` for a single input).
             */
            until: number;
            /** @description The pane whose token acted. */
            viaSubshellId: string | null;
            /**
             * Format: int64
             * @description The terminal viewer that typed (the number the pane's viewer list shows).
             */
            viewerId: number | null;
        };
        /** @description A pane's input marks. */
        InputMarks: {
            /** @description Oldest first, at most 10,000. */
            marks: components["schemas"]["InputMark"][];
            /** @description Whether the pane has more marks than were listed (the newest are left out). */
            truncated: boolean;
        };
        /** @description `POST /api/subshells/{id}/input`: text typed literally, then named keys. */
        InputRequest: {
            /**
             * @description Named keys pressed after the text (at most 64).
             * @default []
             */
            keys?: components["schemas"]["NamedKey"][];
            /**
             * @description Text typed as it is (a long paste is sent in pieces, in order).
             * @default
             */
            text?: string;
        };
        /** @description `GET /api/settings/instance`. */
        InstanceSettings: {
            /** @description The instance's display name. */
            displayName: string;
        };
        /** @description `PUT /api/settings/instance`. */
        InstanceSettingsUpdate: {
            /** @description The instance's new name. */
            displayName: string;
        };
        /**
         * @description A P-256 public key as a JWK. As a request field, the point must also lie on the curve
         *     (checked after the request's credential; a point off the curve is a 400 naming the field).
         */
        Jwk: {
            /** @description `P-256`. */
            crv: components["schemas"]["Crv"];
            /** @description `EC`. */
            kty: components["schemas"]["Kty"];
            /** @description The x coordinate: 32 bytes, canonical unpadded base64url. */
            x: string;
            /** @description The y coordinate: 32 bytes, canonical unpadded base64url. */
            y: string;
        };
        /** @description `POST /api/subshells/{id}/keepalive` answer (the pane's own token only). */
        KeptAlive: {
            /**
             * Format: int64
             * @description The token's new expiry (ms): seven days from now.
             */
            tokenExpiresAt: number;
        };
        /** @description A kept file. */
        KeptFile: {
            /**
             * Format: int64
             * @description When it was kept (ms since the Unix epoch).
             */
            createdAt: number;
            /** @description Its id. */
            id: string;
            /** @description Its name. */
            name: string;
            /** @description Lowercase hex SHA-256 of its bytes. */
            sha256: string;
            /**
             * Format: int64
             * @description Its size in bytes.
             */
            size: number;
        };
        /** @description The `kty` of a P-256 JWK. */
        Kty: "EC";
        /** @description The preset a pane launches with. */
        LaunchPreset: {
            /**
             * @description Give the harness a private configuration directory under the node's data directory.
             * @default false
             */
            configIsolation?: boolean;
            /**
             * @description Extra environment.
             * @default {}
             */
            env?: {
                [key: string]: string;
            };
            /**
             * @description Extra harness flags (already placed in `argv` by the plane; kept for the node's log).
             * @default []
             */
            flags?: string[];
            /** @description Harness settings, opaque to the node. */
            settings?: unknown;
        };
        /** @description `POST /api/subshells`: launch a harness in a pane. */
        LaunchRequest: {
            /**
             * @description Columns (default 120).
             * @default null
             */
            cols?: number | null;
            /**
             * @description An absolute directory to start in (default: the workspace's directory, else the node's
             *     home). With a workspace too, this directory is used and the workspace recorded.
             * @default null
             */
            cwd?: string | null;
            /**
             * @description The harness plugin (`shell`, `claude-code`, `codex`, `gemini`, …).
             * @enum {string}
             */
            harnessId: "shell" | "claude-code" | "codex" | "gemini" | "opencode";
            /**
             * @description A name to show (default: the harness and a short id).
             * @default null
             */
            name?: string | null;
            /** @description The node to run on (the local node's id for the plane's own host). */
            nodeId: string;
            /**
             * @description The permission map of the pane's token (default: channels write, subshells read). A pane
             *     that launches cannot give more than its own: one that names no map gives the default
             *     capped by its own (a pane that may only read channels launches one that may only read
             *     them too), one that names a map above its own is refused.
             * @default null
             */
            permissions?: components["schemas"]["Permissions"] | null;
            /**
             * @description A preset of the caller (environment, flags, settings, config isolation, auto-restart).
             * @default null
             */
            presetId?: string | null;
            /**
             * @description An initial prompt: passed on the harness's command line where it takes one there (Claude
             *     Code, Codex, Gemini CLI, opencode; a one-word prompt to Claude Code, which could name
             *     one of its subcommands, is typed instead); else typed once the pane's first screen has
             *     settled, and Enter pressed apart once the program has taken the text.
             * @default null
             */
            prompt?: string | null;
            /**
             * @description A harness session to resume (when the harness supports it): 1 to 256 of
             *     `[A-Za-z0-9._:-]`.
             * @default null
             */
            resume?: string | null;
            /**
             * @description Rows (default 36).
             * @default null
             */
            rows?: number | null;
            /**
             * @description A workspace of the caller on that node: the pane starts in its directory.
             * @default null
             */
            workspaceId?: string | null;
        };
        /** @description One network plugin. */
        Listener: {
            /** @description `ip:port` as bound. */
            address: string;
            /**
             * Format: int64
             * @description When it was added (ms since the Unix epoch).
             */
            createdAt: number;
            /** @description Why it does not, when it failed. */
            error: string | null;
            /** @description Its id. */
            id: string;
            /** @description Its name. */
            name: string;
            /** @description The origin trusted while it runs. */
            origin: string;
            /** @description Whether it listens. */
            state: components["schemas"]["ListenerState"];
        };
        /** @description `POST /api/network`. */
        ListenerRequest: {
            /** @description `ip:port` to listen on (port 0 picks a free one); an IPv6 address in brackets. */
            address: string;
            /** @description A name ("tailnet", "lan"). */
            name: string;
            /**
             * @description The origin browsers use to reach it (a host name on the overlay network, say); by
             *     default `http://<address>`.
             * @default null
             */
            origin?: string | null;
        };
        /** @description Whether a listener listens. */
        ListenerState: "running" | "failed";
        /** @description Whether a node's link is up. */
        Liveness: "online" | "offline";
        /** @description `GET /api/subshells/{id}/logs` answer: a byte range of the pane's log. */
        LogChunk: {
            /** @description The bytes, base64 (standard alphabet, padded). */
            dataB64: string;
            /**
             * Format: uint64
             * @description The first byte returned.
             */
            fromByte: number;
            /**
             * Format: uint64
             * @description The log's size now.
             */
            size: number;
            /**
             * Format: uint64
             * @description One past the last byte returned.
             */
            toByte: number;
        };
        /** @description Log levels the node's log file can be switched between. */
        LogLevel: "info" | "debug";
        /** @description A node's maintenance mirror. */
        MaintenanceMirror: {
            /** @description When it last changed (ISO 8601 UTC). */
            changedAt: string;
            /** @description Whether the node is in maintenance. */
            on: boolean;
        };
        /** @description `PUT /api/nodes/{id}/maintenance`. */
        MaintenanceRequest: {
            /** @description Maintenance on or off. */
            on: boolean;
        };
        /** @description `PUT /api/nodes/{id}/maintenance` answer. */
        MaintenanceSet: {
            /** @description When the mirror changed (ISO 8601 UTC). */
            changedAt: string;
            /** @description Maintenance on or off. */
            on: boolean;
            /** @description Whether the online node took the mirror. */
            pushed: boolean;
        };
        /** @description How many notifications changed. */
        MarkedRead: {
            /**
             * Format: uint64
             * @description Notifications newly marked read.
             */
            marked: number;
        };
        /** @description How a harness is told to load the pane's MCP server. */
        McpDialect: {
            /** @description What the plane writes and passes, in words. */
            description: string;
            /**
             * @description `none`, or how: `claude-mcp-config`, `codex-config-override`, `gemini-settings`,
             *     `opencode-config`.
             */
            kind: string;
        };
        /** @description The MCP registration file written before spawn (mode 0600). */
        McpRegistration: {
            /**
             * @description Harness-dialect arguments (already in `argv`; kept for the node's log).
             * @default []
             */
            args?: string[];
            /**
             * @description Harness-dialect environment added to the pane.
             * @default {}
             */
            env?: {
                [key: string]: string;
            };
            /** @description Its full content. */
            fileContent: string;
            /** @description Absolute path of the file. */
            path: string;
            /**
             * @description More entries set the same way after `settingsEntry`, in the same isolated directory (the
             *     harness's hooks that report its agent's state). Sent only to a node whose `ready`
             *     advertises [`SETTINGS_ENTRIES`]; at most [`MAX_SETTINGS_ENTRIES`].
             */
            settingsEntries?: components["schemas"]["SettingsEntry"][];
            /**
             * @description An entry to set in a JSON settings file the harness keeps in its isolated configuration
             *     directory. Sent only with config isolation, to a node whose `ready` advertises
             *     [`SETTINGS_ENTRY`]; an older node's strict decoder would refuse the field.
             */
            settingsEntry?: components["schemas"]["SettingsEntry"] | null;
        };
        /** @description A member of a channel. */
        Member: {
            /** @description Its access (`write` for the owner). */
            access: components["schemas"]["Access"];
            /** @description Its email. */
            email: string;
            /** @description Whether it is the owner. */
            owner: boolean;
            /** @description The account. */
            userId: string;
        };
        /** @description A pane whose notifications you muted. */
        Mute: {
            /**
             * Format: int64
             * @description When you muted it.
             */
            createdAt: number;
            /** @description The subshell. */
            subshellId: string;
            /**
             * Format: int64
             * @description Until when (ms since the Unix epoch); `null`: until you unmute it.
             */
            until: number | null;
        };
        /** @description `PUT /api/notifications/mutes/{subshellId}`. */
        MuteRequest: {
            /**
             * Format: int64
             * @description Until when (ms since the Unix epoch, in the future, at most a year ahead); absent or
             *     `null`: until you unmute it.
             * @default null
             */
            until?: number | null;
        };
        /** @description A named key, from a fixed set (never free text in a key position). */
        NamedKey: "enter" | "escape" | "tab" | "backspace" | "ctrl-c" | "ctrl-d" | "ctrl-z" | "up" | "down" | "left" | "right";
        /** @description A node row. */
        Node: {
            /** @description Version of the node daemon (the plane's own for the local node). */
            agentVersion: string;
            /** @description Allowed directories; empty means unrestricted. */
            allowedDirs: string[];
            /** @description CPU architecture. */
            arch: string;
            /**
             * @description Whether the caller may launch subshells on it: an administrator's session on any node,
             *     a person on the nodes they own (not the local node, unless they are an administrator),
             *     a script on its own nodes, the local node and the nodes open to scripts. A launch, a
             *     harness check or a folder listing on a node answering `false` is refused.
             */
            canLaunch: boolean;
            /**
             * Format: int64
             * @description Creation time (ms).
             */
            createdAt: number;
            /** @description The node's X25519 link public key; `null` while unpaired. */
            encryptPublicKey: string | null;
            /** @description Host name. */
            hostname: string;
            /** @description The node's P-256 identity key (`null` for the local node). */
            identityJwk: components["schemas"]["Jwk"] | null;
            /** @description The plane host's own row (it runs no node daemon). */
            isLocal: boolean;
            /** @description Whether the link is up. */
            liveness: components["schemas"]["Liveness"];
            /** @description The maintenance mirror, when set. */
            maintenance: components["schemas"]["MaintenanceMirror"] | null;
            /** @description Name (at most 64 characters). */
            name: string;
            /** @description Node id. */
            nodeId: string;
            /** @description `linux`, `darwin` or `unknown`, as the node reports it. */
            os: string;
            /**
             * @description Whether its panes are recorded (`PUT /api/nodes/{id}/recording`; on by default): panes
             *     launched or restarted while it is off, or while the plane's own `--recording` is off,
             *     are logged with no timing.
             */
            recording: boolean;
            /**
             * Format: int64
             * @description Days its panes' recordings are kept (`PUT /api/nodes/{id}/recording`); `null`: the
             *     plane's default (`--recording-retention-days`; none: kept as long as the pane, within
             *     its log's cap). A workspace's own setting wins for its panes.
             */
            recordingRetentionDays: number | null;
            /** @description Supervision snapshot, as the node last reported it in `ready`. */
            runtime: unknown;
            /**
             * @description Whether scripts (system keys) may launch subshells on it (`PUT
             *     /api/nodes/{id}/system-access`; the local node is always open to them).
             */
            systemAccess: boolean;
            /**
             * Format: int64
             * @description Last change (ms).
             */
            updatedAt: number;
        };
        /** @description A command, as carried in the `cmd` claim. */
        NodeCommand: {
            /** @description The complete command line, with [`HARNESS_BINARY_PLACEHOLDER`] in the binary slot. */
            argv: string[];
            /**
             * @description Downgrade a log-attach failure to a note instead of a failed launch.
             * @default false
             */
            bestEffortLog?: boolean;
            /**
             * Format: uint16
             * @description Initial columns.
             */
            cols: number;
            /**
             * @description The `TERMPLANE_*` credential environment of the pane.
             * @default {}
             */
            credentialEnv?: {
                [key: string]: string;
            };
            /** @description Working directory: absolute, stat-verified by the node. */
            cwd: string;
            /** @description The harness plugin id. */
            harnessId: string;
            /** @description Optional MCP registration file. */
            mcp?: components["schemas"]["McpRegistration"] | null;
            /**
             * @description The preset.
             * @default {
             *       "configIsolation": false,
             *       "env": {},
             *       "flags": []
             *     }
             */
            preset?: components["schemas"]["LaunchPreset"];
            /**
             * @description `false`: the pane's output is logged but not recorded (no timing file). Absent: the
             *     node records it. Sent only to a node that advertises [`RECORDING`]; an older node's
             *     strict decoder would refuse the field.
             */
            recording?: boolean | null;
            /** @description How to fill the binary slot. */
            resolve: components["schemas"]["Resolve"];
            /** @description Optional resume pin (harness session id to resume). */
            resume?: string | null;
            /**
             * Format: uint16
             * @description Initial rows.
             */
            rows: number;
            /** @description The subshell the pane belongs to. */
            subshellId: string;
            /** @constant */
            type: "launch";
        } | {
            /** @description The subshell. */
            subshellId: string;
            /** @constant */
            type: "terminate";
        } | {
            /** @description The subshell. */
            subshellId: string;
            /** @constant */
            type: "kill";
        } | {
            /** @description The subshell. */
            subshellId: string;
            /** @constant */
            type: "forget";
        } | {
            /**
             * Format: uint32
             * @description How long the pane must stay unchanged to count as quiet (default 1,500 ms).
             */
            quietMs?: number | null;
            /** @description Target pane. */
            subshellId: string;
            /** @description Text typed literally, followed by Enter. */
            text: string;
            /**
             * Format: uint32
             * @description Give up waiting for quiet after this long (default 60,000 ms; at most the command deadline
             *     of the plane allows, which the plane accounts for).
             */
            timeoutMs?: number | null;
            /** @constant */
            type: "prompt_deliver";
        } | {
            /**
             * @description Text (may hold control characters and escape sequences, as a terminal sends them).
             * @default
             */
            data?: string;
            /** @description Named keys pressed after `data`. */
            keys?: components["schemas"]["NamedKey"][];
            /** @description Target pane. */
            subshellId: string;
            /** @constant */
            type: "input";
        } | {
            /**
             * Format: uint16
             * @description Columns (1 to 1,000).
             */
            cols: number;
            /**
             * Format: uint16
             * @description Rows (1 to 1,000).
             */
            rows: number;
            /** @description Target pane. */
            subshellId: string;
            /** @constant */
            type: "resize";
        } | {
            /**
             * Format: uint32
             * @description Lines of reflowed history to prepend (for attach replay).
             */
            lines?: number | null;
            /**
             * @description Answer the attach replay instead of the text: `{ replay_b64, logOffset, cols, rows,
             *     alternate }` (`null` when the pane is gone), the bytes that put a fresh terminal in the
             *     pane's state (screens, modes, cursor). Sent only to a node whose `ready` advertises the
             *     capability [`SCREEN_REPLAY`]; an older node's strict decoder would refuse the field.
             */
            replay?: boolean;
            /** @description Target pane. */
            subshellId: string;
            /** @constant */
            type: "capture";
        } | {
            /** @description The subshell. */
            subshellId: string;
            /** @constant */
            type: "pane_size";
        } | {
            /** @description The subshell. */
            subshellId: string;
            /** @constant */
            type: "pane_cursor";
        } | {
            /**
             * Format: uint64
             * @description First byte to read.
             */
            fromByte: number;
            /**
             * Format: uint32
             * @description Most bytes to return (the node caps it to fit one frame).
             */
            maxBytes: number;
            /** @description Target pane. */
            subshellId: string;
            /** @constant */
            type: "log_read";
        } | {
            /**
             * Format: uint64
             * @description First byte to read.
             */
            fromByte: number;
            /**
             * Format: uint32
             * @description Most bytes to return (the node caps it to fit one frame).
             */
            maxBytes: number;
            /** @description Target pane. */
            subshellId: string;
            /** @constant */
            type: "timing_read";
        } | {
            /**
             * Format: uint64
             * @description Unix microseconds (the node's clock, as its timing records): what was printed before
             *     this is dropped.
             */
            beforeUs: number;
            /** @description Target pane. */
            subshellId: string;
            /** @constant */
            type: "recording_trim";
        } | {
            /**
             * Format: uint64
             * @description Start offset; absent means "from the current end".
             */
            fromByte?: number | null;
            /** @description Subscription key, echoed on every `output` event. */
            subId: string;
            /** @description Target pane. */
            subshellId: string;
            /** @constant */
            type: "tail_start";
        } | {
            /** @description The subscription to end. */
            subId: string;
            /** @constant */
            type: "tail_stop";
        } | {
            /** @description Absolute path (for `fs_ls`, the empty string means the node's home directory). */
            path: string;
            /** @constant */
            type: "stat_dir";
        } | {
            /** @description Absolute path (for `fs_ls`, the empty string means the node's home directory). */
            path: string;
            /** @constant */
            type: "path_exists";
        } | {
            /** @description Absolute path (for `fs_ls`, the empty string means the node's home directory). */
            path: string;
            /** @constant */
            type: "fs_ls";
        } | {
            /**
             * Format: uint32
             * @description The chunk's index, from 0.
             */
            chunk: number;
            /** @description The chunk's bytes, base64url unpadded. */
            chunk_b64: string;
            /** @description Whether this is the last chunk (the file is then moved into place). */
            eof: boolean;
            /** @description Absolute destination path (path-policy enforced). */
            path: string;
            /** @constant */
            type: "write_file";
        } | {
            /** @description Absolute paths (path-policy enforced). */
            paths: string[];
            /** @constant */
            type: "remove_paths";
        } | {
            /** @description Absolute directories; empty means unrestricted. */
            dirs: string[];
            /** @constant */
            type: "set_allowed_dirs";
        } | {
            /** @description The action. */
            action: components["schemas"]["ServiceAction"];
            /**
             * @description Proceed even if panes would die.
             * @default false
             */
            force?: boolean;
            /** @constant */
            type: "service";
        } | {
            /**
             * Format: uint64
             * @description First byte.
             */
            fromByte: number;
            /**
             * Format: uint32
             * @description Most bytes.
             */
            maxBytes: number;
            /** @constant */
            type: "agent_log_read";
        } | {
            /** @constant */
            type: "set_server_url";
            /** @description The new base URL of the plane. */
            url: string;
        } | {
            /** @description The level. */
            level: components["schemas"]["LogLevel"];
            /** @constant */
            type: "set_log_level";
        } | {
            /** @description When it last changed, ISO 8601. */
            changedAt: string;
            /** @description Whether the node is in maintenance. */
            on: boolean;
            /** @constant */
            type: "set_maintenance";
        } | {
            /** @description Proceed even if panes would die. */
            force?: boolean | null;
            /** @description Lowercase hex SHA-256 of the binary. */
            sha256: string;
            /** @constant */
            type: "update";
            /** @description Where to download it. */
            url: string;
            /** @description The version the new binary must report. */
            version: string;
        } | {
            /** @description Subshells whose liveness is asked. */
            subshellIds: string[];
            /** @constant */
            type: "probe";
        } | {
            /** @constant */
            type: "inventory";
        } | {
            /** @description Exactly the environment variables whose values are answered (required). */
            envNames: string[];
            /**
             * @description Binaries to look for.
             * @default []
             */
            rules?: components["schemas"]["DetectRule"][];
            /** @constant */
            type: "detect";
        } | {
            /** @constant */
            type: "ping";
        } | {
            /** @description Whether to send the events. */
            on: boolean;
            /**
             * Format: uint32
             * @description How long a pane must print nothing to be quiet ([`ACTIVITY_QUIET_MS`]).
             */
            quietMs: number;
            /** @constant */
            type: "activity";
        };
        /** @description `POST /api/nodes/{id}/commands` answer. */
        NodeCommandAnswer: {
            /**
             * Format: uint64
             * @description Dispatch to result, in microseconds, measured in the plane.
             */
            elapsedUs: number;
            /** @description The node's `result`. */
            result: components["schemas"]["NodeResult"];
            /**
             * Format: uint64
             * @description Unix microseconds just before the command was dispatched.
             */
            sentAtUs: number;
        };
        /** @description One node binary the plane serves. */
        NodeDownload: {
            /**
             * Format: uint64
             * @description Its size in bytes.
             */
            bytes: number;
            /** @description `<os>-<arch>`. */
            platform: string;
            /** @description Lowercase hex SHA-256. */
            sha256: string;
            /** @description Where nodes fetch it. */
            url: string;
        };
        /** @description One event a node sent on its own. */
        NodeEvent: {
            /**
             * Format: uint64
             * @description When the plane received it, Unix microseconds.
             */
            atUs: number;
            /** @description The event as the node sent it. */
            event: unknown;
            /**
             * @description The event's type (`output`, `exit`, `subshells_report`, `maintenance`, `inventory`,
             *     `error`).
             */
            kind: string;
            /**
             * Format: uint64
             * @description Per-node sequence number (since the plane started).
             */
            seq: number;
        };
        /** @description `GET /api/nodes/{id}/events` answer. */
        NodeEvents: {
            /** @description Events after `after` were evicted before this read. */
            dropped: boolean;
            /** @description The events after `after`, oldest first. */
            events: components["schemas"]["NodeEvent"][];
            /**
             * Format: uint64
             * @description Pass as `after` to read on.
             */
            next: number;
        };
        /**
         * @description The commands that add a node with one setup key (on an active key only).
         *
         *     Every command is one line of POSIX shell (bash, zsh and dash alike) that works when pasted
         *     into a terminal of the node's machine, in the order given; the program goes to
         *     `~/.local/bin/termplane-node` and is called by that path, so nothing depends on `PATH`.
         */
        NodeInstall: {
            /**
             * @description The one command: `curl -fsSL {scriptUrl} | sh -s -- --setup-key nsk_…` downloads the
             *     program for the machine's platform, checks its SHA-256, enrolls the node and starts its
             *     service (or says how to run it in the foreground).
             */
            command: string;
            /** @description Step 1 of the step-by-step form, for each platform the plane serves a program for. */
            downloads: components["schemas"]["NodeInstallDownload"][];
            /** @description Step 2: enroll with the setup key. */
            enroll: string;
            /** @description Step 3 where no service manager is usable: the daemon in the foreground. */
            foreground: string;
            /**
             * @description The plane's address in the commands: the trusted origin the caller reached the plane
             *     at, or its base URL (`APP_BASE_URL`).
             */
            planeUrl: string;
            /** @description `{planeUrl}/install.sh`. */
            scriptUrl: string;
            /**
             * @description Step 3: install and start the service (a systemd user unit with lingering, or a
             *     launchd agent).
             */
            service: string;
        };
        /** @description Step 1 for one platform: the program, where it is and the commands that fetch and check it. */
        NodeInstallDownload: {
            /**
             * Format: uint64
             * @description Its size in bytes.
             */
            bytes: number;
            /**
             * @description The commands, in order: download into `~/.local/bin`, then check the digest and make it
             *     executable (a program whose digest differs is never made executable).
             */
            commands: string[];
            /** @description `<os>-<arch>`, as `uname` names it (`linux-x86_64`, `darwin-aarch64`, …). */
            platform: string;
            /** @description Lowercase hex SHA-256. */
            sha256: string;
            /** @description `/api/downloads/node/{platform}` under the plane's address. */
            url: string;
        };
        /** @description `POST /api/nodes/{id}/key_rotate` answer. */
        NodeKeyRotated: {
            /** @description Node id. */
            nodeId: string;
            /**
             * @description The new node key (`tp_…`), shown in this answer only; install it on the node with
             *     `termplane-node configure --key`.
             */
            nodeKey: string;
        };
        /** @description `POST /api/nodes/{id}/ping` answer. */
        NodePing: {
            /** @description The node's refusal, when `ok` is false. */
            error?: string | null;
            /** @description Whether the node answered `ping` successfully. */
            ok: boolean;
            /**
             * Format: uint64
             * @description Round trip through the link, in milliseconds.
             */
            rttMs: number;
        };
        /** @description A node's `result` event, as relayed. */
        NodeResult: {
            /** @description Result data on success (the command's own shape). */
            data?: unknown;
            /** @description What went wrong beyond the refusal string (`HTTP 404` after `download failed`, say). */
            detail?: string | null;
            /**
             * @description The refusal or failure text (one of the protocol's refusal strings where one applies, so
             *     it can be matched exactly).
             */
            error?: string | null;
            /** @description Whether it succeeded. */
            ok: boolean;
            /** @description The command's jti. */
            ref: string;
        };
        /** @description What an update sent to one node came to. */
        NodeUpdateOutcome: {
            /** @description The version it ran. */
            fromVersion: string;
            /** @description Its name. */
            name: string;
            /** @description The node. */
            nodeId: string;
            /**
             * @description Whether the node accepted, verified and installed the binary (it restarts next and comes
             *     back online on the new version).
             */
            ok: boolean;
            /** @description Why not, when `ok` is false (the node's own words, or why it could not be asked). */
            reason: string | null;
            /** @description The version it was sent (the plane's own: the plane serves node binaries of its version). */
            toVersion: string;
        };
        /** @description `POST /api/admin/updates/nodes/{id}` and `POST /api/admin/updates/outdated`. */
        NodeUpdateRequest: {
            /**
             * @description Update even though panes run on the node: the node refuses an update ("kills panes")
             *     while any of its panes runs, since the restart its service manager then does may end
             *     them with the daemon. (`runtime.panesAtRisk` is what the node said at its last `ready`;
             *     the node decides on what runs when the update arrives.)
             * @default null
             */
            force?: boolean | null;
        };
        /** @description One notification. */
        Notification: {
            /** @description One line of detail. */
            body: string;
            /**
             * Format: int64
             * @description When (ms since the Unix epoch).
             */
            createdAt: number;
            /** @description Its id. */
            id: string;
            /** @description What it is about. */
            kind: components["schemas"]["NotificationKind"];
            /**
             * Format: int64
             * @description When it was marked read.
             */
            readAt: number | null;
            /** @description The subshell or node. */
            subjectId: string;
            /** @description A short title. */
            title: string;
            /** @description The app's page for its subject (`/subshells/{id}` or `/nodes`), as the push carries it. */
            url: string;
        };
        /** @description What a notification is about. */
        NotificationKind: "needs_input" | "done" | "error" | "exited" | "crashed" | "node_offline";
        /** @description `GET`/`PUT /api/notifications/preferences`: what the account is told about. */
        NotificationPrefs: {
            /** @description One of their subshells crashed. */
            crashed: boolean;
            /** @description One of their subshells exited. */
            exited: boolean;
            /** @description One of their subshells needs input. */
            needsInput: boolean;
            /** @description One of their nodes went offline. */
            nodeOffline: boolean;
            /**
             * @description Quiet hours: while they last, a notification reaches the inbox (and the live feed) but
             *     no push device. Absent (or `null`): none.
             */
            quietHours?: components["schemas"]["QuietHours"] | null;
        };
        /** @description An OpenAPI 3.1 document (this one) */
        OpenApiDocument: Record<string, unknown>;
        /** @description A node's operating system, as it reports it. */
        Os: "linux" | "darwin" | "unknown";
        /**
         * @description A change in a pane's life, for its recording's timeline (`GET
         *     /api/subshells/{id}/recording/events`).
         */
        PaneEvent: {
            /**
             * Format: int64
             * @description When (Unix ms, the plane's clock).
             */
            at: number;
            /** @description `launched`, `launch_failed`, `restarted`, `terminated`, `killed` or `agent_state`. */
            kind: string;
            /** @description For `agent_state`: the state the agent moved to (`working`, `needs_input`, …). */
            state: string | null;
            /** @description For `agent_state`: the agent's one line about it, when it gave one. */
            summary: string | null;
        };
        /** @description A pane's life events, oldest first, at most 10,000 (the latest). */
        PaneEvents: {
            /** @description The events. */
            events: components["schemas"]["PaneEvent"][];
        };
        /** @description The answer of both start routes. */
        PasskeyCeremony: {
            /** @description Names this ceremony in the finish request. */
            ceremonyId: string;
            /** @description The WebAuthn options in JSON form (binary fields base64url without padding). */
            publicKey: components["schemas"]["WebAuthnOptions"];
        };
        /** @description `POST /api/auth/passkeys/register/finish` and `POST /api/auth/passkey/finish`. */
        PasskeyFinish: {
            /** @description The start answer's `ceremonyId`. */
            ceremonyId: string;
            /** @description The browser's `PublicKeyCredential` in JSON form. */
            credential: components["schemas"]["WebAuthnCredential"];
        };
        /** @description One passkey of the calling account. */
        PasskeyInfo: {
            /**
             * Format: int64
             * @description When it was registered (ms since the Unix epoch).
             */
            createdAt: number;
            /** @description Row id. */
            id: string;
            /**
             * Format: int64
             * @description When it last signed in, if ever.
             */
            lastUsedAt: number | null;
            /** @description Its name. */
            name: string;
        };
        /** @description `POST /api/auth/passkeys/register/start`. */
        PasskeyRegisterStart: {
            /** @description A name to tell this passkey from the account's others ("laptop", "phone"). */
            name: string;
        };
        /** @description `POST /api/auth/passkey/start`. */
        PasskeySignInStart: {
            /**
             * Format: email
             * @description The account's email.
             */
            email: string;
        };
        /** @description The permission map of a subshell token: a fixed ceiling for everything the pane does. */
        Permissions: {
            /** @description Channels (encrypted agent logs). */
            channels: components["schemas"]["Access"];
            /**
             * @description Subshells of the pane's owner: `read` lists and reads them, `write` also types into,
             *     resizes, restarts, stops and launches them. Typing into a pane is full control of it
             *     (it can print its own token, which the typist then reads off its screen), so `write`
             *     reaches as far as the widest token among the owner's panes: give it only to a pane you
             *     would trust with all of them.
             */
            subshells: components["schemas"]["Access"];
        };
        /** @description `PUT /api/uploads/{id}/pieces/{index}`. */
        PieceRequest: {
            /** @description The piece's bytes, base64 (standard alphabet, padded). */
            dataB64: string;
        };
        /** @description A harness plugin. */
        Plugin: {
            /** @description The command line, with `@@HARNESS_BINARY@@` in the binary's place. */
            argv: string[];
            /** @description What it runs. */
            description: string;
            /** @description How the binary is found. */
            detection: components["schemas"]["Detection"];
            /** @description Whether it may be launched (an administrator turns plugins on or off). */
            enabled: boolean;
            /** @description Plugin id. */
            id: string;
            /** @description `harness` (the only kind today). */
            kind: string;
            /** @description How its MCP server is registered. */
            mcp: components["schemas"]["McpDialect"];
            /** @description Name. */
            name: string;
            /** @description Whether it can resume an earlier session (`resume` at launch). */
            resume: boolean;
        };
        /** @description `PUT /api/plugins/{id}`. */
        PluginUpdate: {
            /** @description On or off. */
            enabled: boolean;
        };
        /** @description `POST /api/channels/{id}/entries`. */
        PostEntry: {
            /** @description The text. */
            body: components["schemas"]["EntryBody"];
            /** @description The identity that signed it (the caller's own). */
            identityId: string;
            /** @description The channel's `head.hash`. */
            prev: components["schemas"]["HashText"];
            /**
             * Format: uint64
             * @description Its `seq`: the channel's `head.seq + 1`.
             */
            seq: number;
            /** @description ES256 signature of the entry signing input. */
            signature: components["schemas"]["SignatureText"];
        };
        /** @description A preset. */
        Preset: {
            /** @description Relaunch on crash. */
            autoRestart: boolean;
            /** @description A private configuration directory per harness on the node. */
            configIsolation: boolean;
            /**
             * Format: int64
             * @description Creation time (ms).
             */
            createdAt: number;
            /** @description Environment variables. */
            env: {
                [key: string]: string;
            };
            /** @description Flags. */
            flags: string[];
            /** @description The harness it is for. */
            harnessId: string | null;
            /** @description Preset id. */
            id: string;
            /** @description Name. */
            name: string;
            /** @description The owning account. */
            ownerUserId: string;
            /** @description Harness settings. */
            settings: {
                [key: string]: unknown;
            } | null;
            /**
             * Format: int64
             * @description Last change (ms).
             */
            updatedAt: number;
        };
        /** @description `POST /api/presets` and `PUT /api/presets/{id}`. */
        PresetRequest: {
            /**
             * @description Relaunch the pane when its program crashes.
             * @default false
             */
            autoRestart?: boolean;
            /**
             * @description A private configuration directory for the harness on the node, kept across launches.
             * @default false
             */
            configIsolation?: boolean;
            /**
             * @description Environment variables of the pane (they win over the node's).
             * @default {}
             */
            env?: {
                [key: string]: string;
            };
            /**
             * @description Flags added to the harness's command line, in order (at most 32).
             * @default []
             */
            flags?: string[];
            /**
             * @description The harness it is for (any, when absent).
             * @default null
             * @enum {string|null}
             */
            harnessId?: "shell" | "claude-code" | "codex" | "gemini" | "opencode" | null;
            /** @description Name. */
            name: string;
            /**
             * @description Harness settings, passed as they are (an object).
             * @default null
             */
            settings?: {
                [key: string]: unknown;
            } | null;
        };
        /** @description `GET /api/settings/public`. */
        PublicSettings: {
            /** @description Every origin a browser may send state-changing requests from. */
            trustedOrigins: string[];
        };
        /** @description The push service's URL for this subscription, as the browser gives it: `https://`, a host name (not an address, not `localhost`), an optional port and a path of printable ASCII. Push services are on the public internet: a name that resolves to a loopback, private or reserved address is refused too (400), when it is registered and again when each push is sent. */
        PushEndpoint: string;
        /**
         * @description A daily span of quiet hours, read in the person's own time zone (it may run past midnight:
         *     `22:00` to `07:00`; `from` equal to `to` is refused).
         */
        QuietHours: {
            /** @description Start, `HH:MM` (24-hour). */
            from: string;
            /** @description An IANA time zone name (`Europe/Berlin`, `America/New_York`, `UTC`). */
            timeZone: string;
            /** @description End, `HH:MM` (24-hour). */
            to: string;
        };
        /**
         * @description `PUT /api/nodes/{id}/recording` and `PUT /api/workspaces/{id}/recording` (an
         *     administrator's session): both settings are replaced.
         */
        RecordingRequest: {
            /** @description Whether the panes launched or restarted there from now on are recorded. */
            on: boolean;
            /**
             * @description Days a recording of theirs is kept (what was printed longer ago is deleted); absent or
             *     `null`: a workspace's panes as their node says, a node's as the plane's
             *     `--recording-retention-days` says.
             * @default null
             */
            retentionDays?: number | null;
        };
        /** @description `POST /api/identities`. */
        RegisterIdentity: {
            /** @description A name people recognise it by (`alice's laptop`, `reviewer pane`). */
            name: string;
            /** @description ES256 signature of the identity proof text by the key's private half. */
            proof: components["schemas"]["SignatureText"];
            /** @description Its public key. */
            publicKey: components["schemas"]["Jwk"];
        };
        /** @description Which signal a report is: the harness's hook, or the agent speaking for itself. */
        ReportSource: "hook" | "self_report";
        /** @description A state a pane may report for itself (`starting` and `unknown` are the plane's own). */
        ReportedState: "working" | "idle" | "needs_input" | "done" | "error";
        /** @description `POST /api/users/{id}/password`: an administrator sets another account's password. */
        ResetPasswordRequest: {
            /** @description The new password (8 to 1024 characters); every session of the account ends. */
            newPassword: string;
        };
        /** @description `POST /api/subshells/{id}/resize`. */
        ResizeRequest: {
            /** @description Columns. */
            cols: number;
            /** @description Rows. */
            rows: number;
        };
        /** @description How the node finds the harness binary at spawn time. */
        Resolve: {
            /** @description File name looked up on `PATH`. */
            binaryName: string;
            /** @description Environment variable whose value, when set and executable, wins over everything. */
            envOverride?: string | null;
            /** @description Absolute paths tried, in order, after `PATH`. */
            knownPaths?: string[];
        };
        /** @description An account's role. */
        Role: "admin" | "user" | "service";
        /** @description `GET /api/subshells/{id}/screen` answer: the pane's text as it shows now. */
        Screen: {
            /** @description The text, one line per row. */
            text: string;
        };
        /** @description `POST /api/files/{id}/send`. */
        SendFile: {
            /**
             * @description Replace a file of that name there.
             * @default false
             */
            overwrite?: boolean;
            /** @description The pane whose working directory receives the file (under the file's name). */
            subshellId: string;
        };
        /** @description A service-manager action. */
        ServiceAction: "start" | "stop" | "restart" | "install" | "uninstall";
        /** @description `PUT /api/subshells/{id}/session` (the pane's own token only). */
        SessionRequest: {
            /** @description The harness's own session id (what `resume` takes). */
            harnessSessionId: string;
        };
        /** @description `PUT /api/channels/{id}/members/{userId}`. */
        SetMember: {
            /** @description `read`, or `write` (read and post). */
            access: components["schemas"]["Access"];
        };
        /**
         * @description An entry set in a harness's own JSON settings file before the pane starts. The file is
         *     `<dir>/<file>`, where `<dir>` is the value of the pane's environment variable `dirEnv`
         *     (after config isolation and the preset's environment are applied), which must lie inside the
         *     harness's isolated configuration directory. The file's object keeps everything else it
         *     holds; the nested objects named by `keys` are made where missing and the last key is set to
         *     `value`.
         */
        SettingsEntry: {
            /** @description The environment variable naming the directory the file is in. */
            dirEnv: string;
            /** @description The file, relative to that directory. */
            file: string;
            /** @description The keys of the nested objects down to the entry (at least one). */
            keys: string[];
            /** @description The entry. */
            value: unknown;
        };
        /** @description A setup key (stored in the clear by design and listed in full while active). */
        SetupKey: {
            /**
             * Format: int64
             * @description Creation time (ms).
             */
            createdAt: number;
            /**
             * Format: int64
             * @description Expiry, 24 hours after creation (ms).
             */
            expiresAt: number;
            /** @description Key id. */
            id: string;
            /** @description While it is active, the commands that add a node with it; `null` otherwise. */
            install: components["schemas"]["NodeInstall"] | null;
            /** @description The key in full while it is active; `null` otherwise. */
            key: string | null;
            /** @description Non-secret preview. */
            preview: string;
            /**
             * Format: int64
             * @description When it was revoked (ms).
             */
            revokedAt: number | null;
            /** @description State. */
            status: components["schemas"]["SetupKeyStatus"];
            /**
             * Format: int64
             * @description When a node enrolled with it (ms).
             */
            usedAt: number | null;
            /** @description The node that enrolled with it. */
            usedByNodeId: string | null;
        };
        /** @description A setup key's state. */
        SetupKeyStatus: "active" | "used" | "expired" | "revoked";
        /** @description `POST /api/setup`: the first (administrator) account. */
        SetupRequest: {
            /** @description The administrator's display name. */
            displayName: string;
            /**
             * Format: email
             * @description The administrator's email.
             */
            email: string;
            /**
             * @description The instance's name, shown in the browser's title bar and the app's header (1 to 64
             *     characters; the name set when the database was created stays without it).
             * @default null
             */
            instanceName?: string | null;
            /** @description The administrator's password (8 to 1024 characters). */
            password: string;
        };
        /** @description `GET /api/setup/status`. */
        SetupStatus: {
            /** @description Whether the first account exists. */
            setupDone: boolean;
        };
        /** @description One share of a subshell. */
        Share: {
            /** @description What that account may do. */
            access: components["schemas"]["ShareAccess"];
            /**
             * Format: int64
             * @description When it was granted (ms since the Unix epoch).
             */
            createdAt: number;
            /** @description Who granted it. */
            grantedBy: string;
            /** @description The subshell. */
            subshellId: string;
            /**
             * Format: int64
             * @description When its access last changed.
             */
            updatedAt: number;
            /** @description The account it is shared with. */
            userId: string;
        };
        /** @description Access a share gives. */
        ShareAccess: "read" | "write";
        /** @description `PUT /api/subshells/{id}/shares/{userId}`. */
        ShareRequest: {
            /** @description What the account may do. */
            access: components["schemas"]["ShareAccess"];
        };
        /** @description `POST /api/auth/sign-in`. */
        SignInRequest: {
            /**
             * Format: email
             * @description The account's email.
             */
            email: string;
            /** @description The account's password. */
            password: string;
        };
        /** @description An ES256 signature: the 64-byte `r || s` in unpadded base64url. */
        SignatureText: string;
        /** @description `POST /api/subshells/{id}/status` (the pane's own token only): what the agent is doing. */
        StatusRequest: {
            /**
             * Format: uri
             * @description A link (kept until the next report; none clears it).
             * @default null
             */
            link?: string | null;
            /**
             * Format: int64
             * @description The reporter's own time of what it reports (ms since the epoch), when it knows it: a
             *     report older than the newest one recorded for the pane is refused (409
             *     `STALE_REPORT`), so reports that cross on the way land in order. Within a day of the
             *     plane's clock.
             * @default null
             */
            observedAt?: number | null;
            /** @description Which signal this is (default `self_report`). */
            source?: components["schemas"]["ReportSource"];
            /** @description The state. */
            state: components["schemas"]["ReportedState"];
            /**
             * @description A one-line summary (kept until the next report; none clears it).
             * @default null
             */
            summary?: string | null;
        };
        /** @description A subshell as the API shows it. */
        Subshell: {
            /** @description What the agent in it is doing. */
            agent: components["schemas"]["AgentStatus"];
            /** @description What the harness last reported. */
            attention: components["schemas"]["Attention"];
            /**
             * Format: int64
             * @description When it reported it (ms).
             */
            attentionAt: number | null;
            /** @description Relaunch when the program crashes (from the preset). */
            autoRestart: boolean;
            /**
             * Format: uint16
             * @description Columns.
             */
            cols: number;
            /**
             * Format: int64
             * @description Creation time (ms).
             */
            createdAt: number;
            /** @description Who launched it. */
            createdBy: components["schemas"]["CreatedBy"];
            /** @description Working directory. */
            cwd: string;
            /**
             * Format: int64
             * @description When it last ended (ms).
             */
            endedAt: number | null;
            /** @description Why the last launch failed. */
            error: string | null;
            /**
             * Format: int32
             * @description Exit code, once ended (`null` when the pane vanished without one).
             */
            exitCode: number | null;
            /** @description The harness plugin. */
            harnessId: string;
            /** @description The harness's own session id, as it reported it (for resuming). */
            harnessSessionId: string | null;
            /** @description Subshell id (also its pane's id on the node). */
            id: string;
            /** @description Name. */
            name: string;
            /** @description The node it runs on. */
            nodeId: string;
            /** @description Whether the node's link is up and its census applied. */
            nodeReachable: boolean;
            /** @description The owning account. */
            ownerUserId: string;
            /** @description The subshell whose pane launched this one, if any. */
            parentSubshellId: string | null;
            /** @description The permission map of the pane's token. */
            permissions: components["schemas"]["Permissions"];
            /** @description The preset it was launched with. */
            presetId: string | null;
            /** @description The initial prompt's delivery: `none`, `pending`, `delivered` or `failed`. */
            promptState: string;
            /**
             * Format: int64
             * @description Relaunches so far.
             */
            restarts: number;
            /**
             * Format: uint16
             * @description Rows.
             */
            rows: number;
            /**
             * Format: int64
             * @description When the pane last started (ms).
             */
            startedAt: number | null;
            /** @description Lifecycle state. */
            state: components["schemas"]["SubshellState"];
            /** @description The badge a view shows. */
            status: components["schemas"]["SubshellStatus"];
            /**
             * Format: int64
             * @description When the pane's token expires (ms); `null` once revoked.
             */
            tokenExpiresAt: number | null;
            /**
             * Format: int64
             * @description Last change (ms).
             */
            updatedAt: number;
            /**
             * @description What its last launch could not do though the pane started: its harness does not load
             *     the pane's MCP server, and why (`null`: nothing).
             */
            warning: string | null;
            /** @description The workspace it was launched in. */
            workspaceId: string | null;
        };
        /**
         * @description Where a subshell is in its life (see `service::lifecycle` for every move).
         *
         *     Every move between states (any other pair is refused; "node unreachable" is a status, not a state):
         *
         *     | from | trigger | to | token |
         *     |---|---|---|---|
         *     | starting | launch accepted by the node | running |  |
         *     | starting | launch refused by the node | failed | revoked |
         *     | starting, running | exit with code 0 | exited | revoked |
         *     | stopping | exit with code 0 | stopped |  |
         *     | starting, running | exit with another code, or none | crashed | revoked |
         *     | stopping | exit with another code, or none | stopped |  |
         *     | starting, running | census or probe: pane gone | crashed | revoked |
         *     | stopping | census or probe: pane gone | stopped |  |
         *     | starting, running | census or probe: pane alive | running |  |
         *     | running | terminate requested | stopping | revoked |
         *     | stopping | grace over (then killed) | stopped |  |
         *     | starting, running, stopping | kill requested | stopped | revoked |
         *     | starting, running, stopping, stopped, exited, crashed, failed | restart requested | starting | rotated |
         *     | crashed | automatic restart (preset asks, under the limit) | starting | rotated |
         */
        SubshellState: "starting" | "running" | "stopping" | "stopped" | "exited" | "crashed" | "failed";
        /** @description The one badge a view of a subshell shows. */
        SubshellStatus: "starting" | "running" | "needs_attention" | "node_unreachable" | "stopping" | "stopped" | "exited" | "crashed" | "failed";
        /** @description `PUT /api/nodes/{id}/system-access` (an administrator's session). */
        SystemAccessRequest: {
            /** @description Whether scripts holding a system key may launch subshells on the node. */
            allowed: boolean;
        };
        /** @description A system key as listed: never its secret. */
        SystemKey: {
            /**
             * Format: int64
             * @description Creation time (milliseconds since the Unix epoch).
             */
            createdAt: number;
            /** @description Whether it authenticates. */
            enabled: boolean;
            /** @description Key id. */
            id: string;
            /** @description Name given at creation. */
            name: string;
            /** @description Non-secret preview of the key (`tp_…` and its last four characters). */
            preview: string;
        };
        /** @description `POST /api/system-keys` answer: the only time the key's plaintext is shown. */
        SystemKeyCreated: {
            /**
             * Format: int64
             * @description Creation time (milliseconds since the Unix epoch).
             */
            createdAt: number;
            /** @description Whether it authenticates (a new key does). */
            enabled: boolean;
            /** @description Key id. */
            id: string;
            /** @description The key's plaintext (`tp_…`): shown in this answer and never again. */
            key: string;
            /** @description Name. */
            name: string;
            /** @description Non-secret preview. */
            preview: string;
        };
        /** @description `POST /api/system-keys/{id}/disable` answer. */
        SystemKeyDisabled: {
            /** @description Always `false`: the key authenticates nowhere from its next request on. */
            enabled: boolean;
            /** @description Key id. */
            id: string;
        };
        /** @description `GET` and `PUT /api/settings/trusted-origins`. */
        TrustedOrigins: {
            /** @description Added by administrators (stored in the database). */
            added: string[];
            /**
             * @description Trusted by configuration: the base URL (`APP_BASE_URL`) and `TRUSTED_ORIGINS`; changed
             *     only by restarting the plane with other settings.
             */
            configured: string[];
        };
        /**
         * @description `PUT /api/settings/trusted-origins`: the whole list of added origins (at most 32), each
         *     `http(s)://host[:port]` with nothing after it.
         */
        TrustedOriginsUpdate: {
            /** @description The origins, replacing the ones added before. */
            added: string[];
        };
        /** @description `GET /api/notifications/unread`. */
        UnreadCount: {
            /**
             * Format: int64
             * @description How many of the account's notifications are unread.
             */
            unread: number;
        };
        /** @description `PATCH /api/users/{id}`: what to change (absent fields stay). */
        UpdateUserRequest: {
            /**
             * @description The new display name.
             * @default null
             */
            displayName?: string | null;
            /**
             * @description The new role (the last enabled administrator cannot be demoted).
             * @default null
             */
            role?: components["schemas"]["GrantableRole"] | null;
        };
        /** @description An upload and its progress. */
        Upload: {
            /** @description Whether the file is in place. */
            done: boolean;
            /** @description The file's absolute path on the pane's node. */
            path: string;
            /**
             * Format: uint64
             * @description Bytes per piece.
             */
            pieceBytes: number;
            /**
             * Format: uint64
             * @description Pieces in all.
             */
            pieces: number;
            /**
             * Format: uint64
             * @description Bytes written so far.
             */
            received: number;
            /**
             * Format: uint64
             * @description Its size.
             */
            size: number;
            /** @description The pane. */
            subshellId: string;
            /** @description Its id. */
            uploadId: string;
        };
        /** @description `POST /api/uploads`. */
        UploadRequest: {
            /** @description The file's name there. */
            name: string;
            /**
             * @description Replace a file of that name (without it, an existing file is a 409).
             * @default false
             */
            overwrite?: boolean;
            /**
             * Format: uint64
             * @description Its size in bytes (0 to 64 MiB).
             */
            size: number;
            /** @description The pane whose working directory receives the file. */
            subshellId: string;
        };
        /** @description An account (`GET /api/users` lists them for any credential). */
        User: {
            /** @description Whether the account is disabled. */
            disabled: boolean;
            /** @description Display name. */
            displayName: string;
            /** @description Email (normalised, lower-case); `system` for the service account. */
            email: string;
            /** @description Account id. */
            id: string;
            /** @description Role. */
            role: components["schemas"]["Role"];
        };
        /** @description `GET /api/devices/vapid`. */
        VapidKey: {
            /** @description The plane's VAPID public key: an uncompressed P-256 point, base64url. */
            publicKey: string;
        };
        /** @description How the caller authenticated. */
        Via: "session" | "system_key" | "pane";
        /** @description PublicKeyCredential in JSON form (WebAuthn Level 3 `toJSON()`), binary fields base64url without padding */
        WebAuthnCredential: {
            authenticatorAttachment?: string | null;
            clientExtensionResults?: Record<string, unknown>;
            extensions?: Record<string, unknown>;
            id: string;
            rawId: string;
            response: Record<string, unknown>;
            /** @constant */
            type: "public-key";
        };
        /** @description PublicKeyCredentialCreationOptions or PublicKeyCredentialRequestOptions in JSON form (WebAuthn Level 3), binary fields base64url without padding */
        WebAuthnOptions: {
            challenge: string;
        };
        /** @description `GET /api/auth/session`: the calling account. */
        Whoami: {
            /** @description Whether the account is disabled. */
            disabled: boolean;
            /** @description Display name. */
            displayName: string;
            /** @description Email. */
            email: string;
            /** @description Account id. */
            id: string;
            /** @description An administrator's browser session (a bearer caller never reads as an administrator). */
            isAdmin: boolean;
            /** @description Role. */
            role: components["schemas"]["Role"];
            /** @description How the caller authenticated. */
            via: components["schemas"]["Via"];
        };
        /** @description A workspace: a named directory on a node. */
        Workspace: {
            /**
             * Format: int64
             * @description Creation time (ms).
             */
            createdAt: number;
            /** @description Workspace id. */
            id: string;
            /** @description Name. */
            name: string;
            /** @description The node. */
            nodeId: string;
            /** @description The owning account. */
            ownerUserId: string;
            /** @description The directory. */
            path: string;
            /**
             * @description Whether its panes are recorded (`PUT /api/workspaces/{id}/recording`, an
             *     administrator's; on by default): panes launched or restarted in it while it is off are
             *     logged with no timing.
             */
            recording: boolean;
            /**
             * Format: int64
             * @description Days its panes' recordings are kept; `null`: as long as its node's setting says.
             */
            recordingRetentionDays: number | null;
            /**
             * Format: int64
             * @description Last change (ms).
             */
            updatedAt: number;
        };
        /** @description `POST /api/workspaces` and `PUT /api/workspaces/{id}`. */
        WorkspaceRequest: {
            /** @description Name. */
            name: string;
            /** @description The node the directory is on. */
            nodeId: string;
            /** @description The directory (absolute; the node checks it against its allowed directories at launch). */
            path: string;
        };
        /** @description A minted attach token. */
        WsToken: {
            /**
             * Format: int64
             * @description When it stops being accepted (ms since the Unix epoch); 30 seconds after minting.
             */
            expiresAt: number;
            /** @description The subshell it is bound to, if any. */
            subshellId: string | null;
            /**
             * @description The token: pass it as the `token` query parameter of the attach URL,
             *     `GET /api/subshells/{id}/attach?token=…` (a WebSocket). The same query may carry `cols`
             *     and `rows` (the viewer's grid), `readOnly=true` (watch only), `sizing=false` (watch, and
             *     type, without resizing the pane for the other viewers) and `device` (`phone`, `tablet`
             *     or `desktop`, shown to the other viewers). Frames, close codes and how the pane's grid
             *     follows its viewers: `/docs/terminal`.
             */
            token: string;
        };
        /** @description `POST /api/auth/ws-token`. */
        WsTokenRequest: {
            /**
             * @description The subshell the token is bound to. A browser session without it gets an unbound token;
             *     a bearer credential may not have one (403 `PERMISSION_DENIED`): it names the subshell.
             * @default null
             */
            subshellId?: string | null;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    adminDeployment: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Deployment"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    adminStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdminStatus"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    heldNodes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HeldNodes"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateNode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["NodeUpdateRequest"] | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NodeUpdateOutcome"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             *     - `LOCAL_NODE`: a write the local node does not support (delete, key rotation, maintenance, system access, update)
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `NODE_OFFLINE`: a command (launch, ping…) for a node whose link is not online, or for the local node when it is off (no tmux, or `--no-local-node`)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Gateway Timeout. Codes:
             *     - `NODE_TIMEOUT`: no result within the command deadline (10 s; 5 min for `update`)
             */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateOutdatedNodes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["NodeUpdateRequest"] | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NodeUpdateOutcome"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    auditLog: {
        parameters: {
            query?: {
                /**
                 * @description Only this action (`node.enrolled`), or, ending with a dot, this family of actions
                 *     (`node.`).
                 */
                action?: string | null;
                /** @description Only entries by this account. */
                actor?: string | null;
                /** @description Only entries by this kind of actor. */
                actorKind?: components["schemas"]["ActorKind"] | null;
                /** @description Only entries older than the entry with this `id` (the cursor). */
                before?: number | null;
                /** @description Only entries at or after this time (ms since the Unix epoch). */
                from?: number | null;
                /** @description Page size: 1 to 500 (default 100). */
                limit?: number | null;
                /** @description Only entries about this row. */
                target?: string | null;
                /** @description Only entries before this time (ms since the Unix epoch). */
                to?: number | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditEntry"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    finishPasskeySignIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PasskeyFinish"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The session cookie (HttpOnly, SameSite=Lax, Path=/; Secure and `__Host-` over https) */
                    "Set-Cookie"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `INVALID_CREDENTIALS`: password or passkey sign-in failed (unknown and known accounts alike)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `PASSKEY_CEREMONY_INVALID`: a passkey ceremony that is unknown, expired (5 minutes), already finished or another account's
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `PASSKEYS_UNAVAILABLE`: the plane is addressed by an IP address (`APP_BASE_URL`); a passkey needs a host name
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Too Many Requests. Codes:
             *     - `TOO_MANY_ATTEMPTS`: sign-in, enrollment or node-key backoff in force (`Retry-After` and `metadata.retryAfterMs`)
             */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    startPasskeySignIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PasskeySignInStart"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PasskeyCeremony"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `PASSKEYS_UNAVAILABLE`: the plane is addressed by an IP address (`APP_BASE_URL`); a passkey needs a host name
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Too Many Requests. Codes:
             *     - `TOO_MANY_ATTEMPTS`: sign-in, enrollment or node-key backoff in force (`Retry-After` and `metadata.retryAfterMs`)
             */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listPasskeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PasskeyInfo"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    finishPasskeyRegistration: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PasskeyFinish"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PasskeyInfo"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             *     - `PASSKEY_REJECTED`: the browser's passkey answer did not verify (`metadata.reason`)
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `PASSKEY_CEREMONY_INVALID`: a passkey ceremony that is unknown, expired (5 minutes), already finished or another account's
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `PASSKEY_EXISTS`: that authenticator's passkey is already registered
             *     - `PASSKEY_LIMIT`: an account holds at most 20 passkeys
             *     - `PASSKEYS_UNAVAILABLE`: the plane is addressed by an IP address (`APP_BASE_URL`); a passkey needs a host name
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    startPasskeyRegistration: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PasskeyRegisterStart"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PasskeyCeremony"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `PASSKEY_LIMIT`: an account holds at most 20 passkeys
             *     - `PASSKEYS_UNAVAILABLE`: the plane is addressed by an IP address (`APP_BASE_URL`); a passkey needs a host name
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Too Many Requests. Codes:
             *     - `TOO_MANY_ATTEMPTS`: sign-in, enrollment or node-key backoff in force (`Retry-After` and `metadata.retryAfterMs`)
             */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deletePasskey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    changePassword: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ChangePasswordRequest"];
            };
        };
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             *     - `CURRENT_PASSWORD_WRONG`: a password change whose current password is wrong
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Too Many Requests. Codes:
             *     - `TOO_MANY_ATTEMPTS`: sign-in, enrollment or node-key backoff in force (`Retry-After` and `metadata.retryAfterMs`)
             */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    session: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Whoami"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    signIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SignInRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The session cookie (HttpOnly, SameSite=Lax, Path=/; Secure and `__Host-` over https) */
                    "Set-Cookie"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `INVALID_CREDENTIALS`: password or passkey sign-in failed (unknown and known accounts alike)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Too Many Requests. Codes:
             *     - `TOO_MANY_ATTEMPTS`: sign-in, enrollment or node-key backoff in force (`Retry-After` and `metadata.retryAfterMs`)
             */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    signOut: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    /** @description The session cookie (HttpOnly, SameSite=Lax, Path=/; Secure and `__Host-` over https) */
                    "Set-Cookie"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    mintWsToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WsTokenRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WsToken"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listChannels: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Channel"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createChannel: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateChannel"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Channel"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `CHANNEL_LIMIT`: an account owns at most 1,000 channels
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getChannel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Channel"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteChannel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PANE_TOKEN_NOT_ALLOWED`: a subshell's token where only a person or a script may act
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listChannelEntries: {
        parameters: {
            query?: {
                /**
                 * @description Entries after this `seq` (default 0: from the first). A cursor past the channel's head
                 *     reads as the head: no entries, and `next` is the head's `seq`.
                 */
                after?: number | null;
                /** @description Page size: 1 to 200 (default 50). */
                limit?: number | null;
                /**
                 * @description When there is no entry after `after`, wait up to this long for one (ms, at most 25,000;
                 *     default 0: answer at once).
                 */
                waitMs?: number | null;
            };
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EntryPage"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    postChannelEntry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PostEntry"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Entry"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             *     - `SIGNATURE_INVALID`: a signature that does not verify with its identity's key: an identity's proof or a channel entry
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             *     - `IDENTITY_NOT_YOURS`: signing with, or revoking, an identity the caller does not hold (a pane holds only the ones its token registered)
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `IDENTITY_REVOKED`: posting with a revoked identity
             *     - `CHANNEL_HEAD_MOVED`: an entry whose `seq` and `prev` are not the channel's head + 1 (`metadata.head` is the current head; sign again)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listChannelMembers: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Member"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setChannelMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The channel. */
                id: string;
                /** @description The account. */
                userId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SetMember"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Member"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PANE_TOKEN_NOT_ALLOWED`: a subshell's token where only a person or a script may act
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `REFERENCE_MISMATCH`: a request naming rows that do not fit together (`metadata.field`: a preset for another harness, a workspace on another node)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    removeChannelMember: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The channel. */
                id: string;
                /** @description The account. */
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PANE_TOKEN_NOT_ALLOWED`: a subshell's token where only a person or a script may act
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listDevices: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Device"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    addDevice: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DeviceRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Device"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `DEVICE_LIMIT`: an account registers at most 10 push devices
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    vapidKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["VapidKey"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteDevice: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    downloadNode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description `<os>-<arch>`, e.g. `linux-x86_64`. */
                platform: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The file's length */
                    "Content-Length"?: number;
                    /** @description The file's SHA-256, lowercase hex */
                    "X-Content-SHA256"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listFiles: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeptFile"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    startFile: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["FileStart"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FileUpload"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `UPLOADS_BUSY`: too many uploads in progress on the plane at once (64 of each kind); try again shortly
             *     - `QUOTA_EXCEEDED`: a file an account would keep past its 1 GiB of kept files
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeptFile"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    readFileBytes: {
        parameters: {
            query?: {
                /** @description First byte to read (default 0; past the file's end reads nothing). */
                fromByte?: number;
                /** @description Most bytes to read (default and at most 1 MiB). */
                maxBytes?: number;
            };
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FileBytes"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    downloadFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The file's length */
                    "Content-Length"?: number;
                    /** @description The file's SHA-256, lowercase hex */
                    "X-Content-SHA256"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/octet-stream": string;
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    putFilePiece: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The upload. */
                id: string;
                /** @description The piece's index, from 0. */
                index: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PieceRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FileUpload"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `UPLOAD_ABANDONED`: an upload piece out of order or of the wrong size: the upload was abandoned, nothing left behind
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sendFile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SendFile"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Upload"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `NODE_OFFLINE`: a command (launch, ping…) for a node whose link is not online, or for the local node when it is off (no tmux, or `--no-local-node`)
             *     - `SUBSHELL_NOT_RUNNING`: reading the screen of, typing into or resizing a subshell that is not live, or reporting its agent's state
             *     - `UPLOAD_EXISTS`: an upload to a file that exists (without `overwrite`) or is being uploaded
             *     - `UPLOADS_BUSY`: too many uploads in progress on the plane at once (64 of each kind); try again shortly
             *     - `NODE_REFUSED`: the node refused a command (`metadata.reason` holds its words)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listIdentities: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Identity"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    registerIdentity: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RegisterIdentity"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Identity"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             *     - `SIGNATURE_INVALID`: a signature that does not verify with its identity's key: an identity's proof or a channel entry
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `IDENTITY_EXISTS`: registering a public key that is registered already
             *     - `IDENTITY_LIMIT`: an account holds at most 1,000 live identities, or a pane's token registered its 8
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getIdentity: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Identity"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeIdentity: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             *     - `IDENTITY_NOT_YOURS`: signing with, or revoking, an identity the caller does not hold (a pane holds only the ones its token registered)
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listNetworkPlugins: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Listener"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    addNetworkPlugin: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ListenerRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Listener"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `NETWORK_BIND_FAILED`: a network plugin whose address the plane cannot listen on (`metadata.reason`)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteNetworkPlugin: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listNodes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Node"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    enrollNode: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EnrollRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Enrolled"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `SETUP_KEY_INVALID`: enrollment with an unknown or malformed setup key
             *     - `SETUP_KEY_EXPIRED`: enrollment with a setup key older than 24 hours
             *     - `SETUP_KEY_REVOKED`: enrollment with a revoked setup key
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `SETUP_KEY_SPENT`: enrollment with a setup key that was already used
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Too Many Requests. Codes:
             *     - `TOO_MANY_ATTEMPTS`: sign-in, enrollment or node-key backoff in force (`Retry-After` and `metadata.retryAfterMs`)
             */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getNode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Node"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteNode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             *     - `LOCAL_NODE`: a write the local node does not support (delete, key rotation, maintenance, system access, update)
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `NODE_HAS_LIVE_SUBSHELLS`: deleting a node on which subshells still run (`metadata.live`: how many; `metadata.subshells`: their `id` and `name`)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setAllowedDirs: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AllowedDirsRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Node"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `NODE_REFUSED`: the node refused a command (`metadata.reason` holds its words)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             *     - `COMMAND_TOO_LARGE`: a node command that would not fit the link's 64 KiB envelope
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    sendNodeCommand: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NodeCommand"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NodeCommandAnswer"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `NODE_OFFLINE`: a command (launch, ping…) for a node whose link is not online, or for the local node when it is off (no tmux, or `--no-local-node`)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             *     - `COMMAND_TOO_LARGE`: a node command that would not fit the link's 64 KiB envelope
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Bad Gateway. Codes:
             *     - `NODE_LINK_CLOSED`: the node's socket closed before the command's result arrived
             *     - `NODE_BAD_RESULT`: the node answered with a malformed result
             */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Gateway Timeout. Codes:
             *     - `NODE_TIMEOUT`: no result within the command deadline (10 s; 5 min for `update`)
             */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    nodeDirs: {
        parameters: {
            query?: {
                /** @description The directory to list (absolute); the node's home directory when absent. */
                path?: string | null;
            };
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DirListing"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PANE_TOKEN_NOT_ALLOWED`: a subshell's token where only a person or a script may act
             *     - `NODE_NOT_ALLOWED`: launching on a node the credential may not use
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `NODE_OFFLINE`: a command (launch, ping…) for a node whose link is not online, or for the local node when it is off (no tmux, or `--no-local-node`)
             *     - `NODE_REFUSED`: the node refused a command (`metadata.reason` holds its words)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Bad Gateway. Codes:
             *     - `NODE_LINK_CLOSED`: the node's socket closed before the command's result arrived
             *     - `NODE_BAD_RESULT`: the node answered with a malformed result
             */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Gateway Timeout. Codes:
             *     - `NODE_TIMEOUT`: no result within the command deadline (10 s; 5 min for `update`)
             */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    nodeEvents: {
        parameters: {
            query?: {
                /** @description Read events after this sequence number (default 0: from the oldest kept). */
                after?: number;
                /** @description Wait up to this many milliseconds for the first event (default 0, at most 25000). */
                waitMs?: number;
            };
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NodeEvents"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    nodeHarnesses: {
        parameters: {
            query?: {
                /**
                 * @description Ask the node again now (a re-check), instead of answering from the last detection when
                 *     it is fresh.
                 */
                refresh?: boolean;
            };
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HarnessStatus"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PANE_TOKEN_NOT_ALLOWED`: a subshell's token where only a person or a script may act
             *     - `NODE_NOT_ALLOWED`: launching on a node the credential may not use
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `NODE_OFFLINE`: a command (launch, ping…) for a node whose link is not online, or for the local node when it is off (no tmux, or `--no-local-node`)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Bad Gateway. Codes:
             *     - `NODE_LINK_CLOSED`: the node's socket closed before the command's result arrived
             *     - `NODE_BAD_RESULT`: the node answered with a malformed result
             */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Gateway Timeout. Codes:
             *     - `NODE_TIMEOUT`: no result within the command deadline (10 s; 5 min for `update`)
             */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    rotateNodeKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["Empty"] | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NodeKeyRotated"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             *     - `LOCAL_NODE`: a write the local node does not support (delete, key rotation, maintenance, system access, update)
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setNodeMaintenance: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MaintenanceRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MaintenanceSet"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             *     - `LOCAL_NODE`: a write the local node does not support (delete, key rotation, maintenance, system access, update)
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    pingNode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["Empty"] | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NodePing"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `NODE_OFFLINE`: a command (launch, ping…) for a node whose link is not online, or for the local node when it is off (no tmux, or `--no-local-node`)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Bad Gateway. Codes:
             *     - `NODE_LINK_CLOSED`: the node's socket closed before the command's result arrived
             *     - `NODE_BAD_RESULT`: the node answered with a malformed result
             */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Gateway Timeout. Codes:
             *     - `NODE_TIMEOUT`: no result within the command deadline (10 s; 5 min for `update`)
             */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setNodeRecording: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RecordingRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Node"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setNodeSystemAccess: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SystemAccessRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Node"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             *     - `LOCAL_NODE`: a write the local node does not support (delete, key rotation, maintenance, system access, update)
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listNotifications: {
        parameters: {
            query?: {
                /** @description Only ones older than this `createdAt` (the cursor: the last entry's `createdAt`). */
                before?: number | null;
                /**
                 * @description With `before`: the last entry's `id` too, so entries of the same millisecond at a page's
                 *     edge are neither skipped nor repeated.
                 */
                beforeId?: string | null;
                /** @description Page size: 1 to 200 (default 50). */
                limit?: number | null;
                /** @description Only unread ones. */
                unread?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Notification"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listMutes: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Mute"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    mutePane: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["MuteRequest"] | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Mute"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    unmutePane: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    notificationPreferences: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotificationPrefs"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setNotificationPreferences: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NotificationPrefs"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NotificationPrefs"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    markAllNotificationsRead: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["Empty"] | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MarkedRead"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    unreadNotificationCount: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnreadCount"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    markNotificationRead: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["Empty"] | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MarkedRead"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    openApiDocument: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OpenApiDocument"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listPlugins: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Plugin"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setPluginEnabled: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Plugin id. */
                id: "shell" | "claude-code" | "codex" | "gemini" | "opencode";
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PluginUpdate"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Plugin"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listPresets: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Preset"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PANE_TOKEN_NOT_ALLOWED`: a subshell's token where only a person or a script may act
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createPreset: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PresetRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Preset"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PANE_TOKEN_NOT_ALLOWED`: a subshell's token where only a person or a script may act
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getPreset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Preset"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PANE_TOKEN_NOT_ALLOWED`: a subshell's token where only a person or a script may act
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updatePreset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PresetRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Preset"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PANE_TOKEN_NOT_ALLOWED`: a subshell's token where only a person or a script may act
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deletePreset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PANE_TOKEN_NOT_ALLOWED`: a subshell's token where only a person or a script may act
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    instanceSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InstanceSettings"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    renameInstance: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InstanceSettingsUpdate"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InstanceSettings"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    publicSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PublicSettings"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    trustedOrigins: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TrustedOrigins"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setTrustedOrigins: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TrustedOriginsUpdate"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TrustedOrigins"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SetupRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `SETUP_ALREADY_DONE`: `POST /api/setup` once the first account exists
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listSetupKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SetupKey"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createSetupKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["Empty"] | null;
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SetupKey"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    revokeSetupKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `SETUP_KEY_NOT_REVOCABLE`: revoking a setup key that is already used or revoked
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setupStatus: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SetupStatus"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listSubshells: {
        parameters: {
            query?: {
                /** @description Only this harness's. */
                harnessId?: "shell" | "claude-code" | "codex" | "gemini" | "opencode" | null;
                /** @description Only this node's subshells. */
                nodeId?: string | null;
                /** @description Only subshells in this state. */
                state?: components["schemas"]["SubshellState"] | null;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subshell"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    launchSubshell: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["LaunchRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subshell"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `NODE_NOT_ALLOWED`: launching on a node the credential may not use
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `NODE_OFFLINE`: a command (launch, ping…) for a node whose link is not online, or for the local node when it is off (no tmux, or `--no-local-node`)
             *     - `PLUGIN_DISABLED`: launching a harness whose plugin an administrator turned off
             *     - `HARNESS_NOT_INSTALLED`: launching a harness the node's fresh detection did not find (`metadata.reason`)
             *     - `REFERENCE_MISMATCH`: a request naming rows that do not fit together (`metadata.field`: a preset for another harness, a workspace on another node)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             *     - `COMMAND_TOO_LARGE`: a node command that would not fit the link's 64 KiB envelope
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `LAUNCH_REFUSED`: the node refused a launch (`metadata.reason`); nothing is left behind
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Bad Gateway. Codes:
             *     - `NODE_LINK_CLOSED`: the node's socket closed before the command's result arrived
             *     - `NODE_BAD_RESULT`: the node answered with a malformed result
             */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Gateway Timeout. Codes:
             *     - `NODE_TIMEOUT`: no result within the command deadline (10 s; 5 min for `update`)
             */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getSubshell: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subshell"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteSubshell: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `NODE_REFUSED`: the node refused a command (`metadata.reason` holds its words)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Bad Gateway. Codes:
             *     - `NODE_BAD_RESULT`: the node answered with a malformed result
             */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    reportAttention: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AttentionRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subshell"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `NOT_OWN_SUBSHELL`: a report for a subshell made with another subshell's token or another credential
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Too Many Requests. Codes:
             *     - `TOO_MANY_REPORTS`: a pane reporting its agent's state or attention past its budget: 30 at once, then 5 a second (`Retry-After` and `metadata.retryAfterMs`)
             */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    waitSubshellEnded: {
        parameters: {
            query?: {
                /** @description How long to wait for the pane to end, in ms (default and at most 25000). */
                waitMs?: number;
            };
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subshell"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    subshellInput: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["InputRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InputDone"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `NODE_OFFLINE`: a command (launch, ping…) for a node whose link is not online, or for the local node when it is off (no tmux, or `--no-local-node`)
             *     - `SUBSHELL_NOT_RUNNING`: reading the screen of, typing into or resizing a subshell that is not live, or reporting its agent's state
             *     - `NODE_REFUSED`: the node refused a command (`metadata.reason` holds its words)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             *     - `COMMAND_TOO_LARGE`: a node command that would not fit the link's 64 KiB envelope
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Bad Gateway. Codes:
             *     - `NODE_LINK_CLOSED`: the node's socket closed before the command's result arrived
             *     - `NODE_BAD_RESULT`: the node answered with a malformed result
             */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Gateway Timeout. Codes:
             *     - `NODE_TIMEOUT`: no result within the command deadline (10 s; 5 min for `update`)
             */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    keepSubshellTokenAlive: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["Empty"] | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KeptAlive"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `NOT_OWN_SUBSHELL`: a report for a subshell made with another subshell's token or another credential
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    killSubshell: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["Empty"] | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subshell"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `NODE_OFFLINE`: a command (launch, ping…) for a node whose link is not online, or for the local node when it is off (no tmux, or `--no-local-node`)
             *     - `INVALID_STATE`: a lifecycle move the subshell's state does not allow; an upload's piece or cancel while another replica writes a piece of it
             *     - `NODE_REFUSED`: the node refused a command (`metadata.reason` holds its words)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Bad Gateway. Codes:
             *     - `NODE_LINK_CLOSED`: the node's socket closed before the command's result arrived
             *     - `NODE_BAD_RESULT`: the node answered with a malformed result
             */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Gateway Timeout. Codes:
             *     - `NODE_TIMEOUT`: no result within the command deadline (10 s; 5 min for `update`)
             */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    subshellLogs: {
        parameters: {
            query?: {
                /** @description First byte to read (default 0). */
                fromByte?: number;
                /** @description Most bytes to read (default and at most 1 MiB). */
                maxBytes?: number;
            };
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LogChunk"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `NODE_OFFLINE`: a command (launch, ping…) for a node whose link is not online, or for the local node when it is off (no tmux, or `--no-local-node`)
             *     - `NODE_REFUSED`: the node refused a command (`metadata.reason` holds its words)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Bad Gateway. Codes:
             *     - `NODE_LINK_CLOSED`: the node's socket closed before the command's result arrived
             *     - `NODE_BAD_RESULT`: the node answered with a malformed result
             */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Gateway Timeout. Codes:
             *     - `NODE_TIMEOUT`: no result within the command deadline (10 s; 5 min for `update`)
             */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    subshellRecordingCast: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/x-asciicast": string;
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `NODE_OFFLINE`: a command (launch, ping…) for a node whose link is not online, or for the local node when it is off (no tmux, or `--no-local-node`)
             *     - `NODE_REFUSED`: the node refused a command (`metadata.reason` holds its words)
             *     - `RECORDING_UNSUPPORTED`: a recording asked of a pane whose node does not record (its version does not advertise `recording`): update the node
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `RECORDING_TOO_LARGE`: an export of a recording whose log or timing is over 16 MiB (`metadata.bytes`, `metadata.maxBytes`)
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Bad Gateway. Codes:
             *     - `NODE_LINK_CLOSED`: the node's socket closed before the command's result arrived
             *     - `NODE_BAD_RESULT`: the node answered with a malformed result
             */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Gateway Timeout. Codes:
             *     - `NODE_TIMEOUT`: no result within the command deadline (10 s; 5 min for `update`)
             */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    subshellRecordingEvents: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PaneEvents"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    subshellRecordingInputs: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InputMarks"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    resizeSubshell: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ResizeRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subshell"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `NODE_OFFLINE`: a command (launch, ping…) for a node whose link is not online, or for the local node when it is off (no tmux, or `--no-local-node`)
             *     - `SUBSHELL_NOT_RUNNING`: reading the screen of, typing into or resizing a subshell that is not live, or reporting its agent's state
             *     - `GRID_HELD`: resizing a pane whose grid follows the viewers attached to it that take part in sizing (the smallest of their grids; `metadata.cols`, `metadata.rows`: the grid it keeps)
             *     - `NODE_REFUSED`: the node refused a command (`metadata.reason` holds its words)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Bad Gateway. Codes:
             *     - `NODE_LINK_CLOSED`: the node's socket closed before the command's result arrived
             *     - `NODE_BAD_RESULT`: the node answered with a malformed result
             */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Gateway Timeout. Codes:
             *     - `NODE_TIMEOUT`: no result within the command deadline (10 s; 5 min for `update`)
             */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    restartSubshell: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["Empty"] | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subshell"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `NODE_OFFLINE`: a command (launch, ping…) for a node whose link is not online, or for the local node when it is off (no tmux, or `--no-local-node`)
             *     - `INVALID_STATE`: a lifecycle move the subshell's state does not allow; an upload's piece or cancel while another replica writes a piece of it
             *     - `NODE_REFUSED`: the node refused a command (`metadata.reason` holds its words)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             *     - `COMMAND_TOO_LARGE`: a node command that would not fit the link's 64 KiB envelope
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `LAUNCH_REFUSED`: the node refused a launch (`metadata.reason`); nothing is left behind
             */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Bad Gateway. Codes:
             *     - `NODE_LINK_CLOSED`: the node's socket closed before the command's result arrived
             *     - `NODE_BAD_RESULT`: the node answered with a malformed result
             */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Gateway Timeout. Codes:
             *     - `NODE_TIMEOUT`: no result within the command deadline (10 s; 5 min for `update`)
             */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    subshellScreen: {
        parameters: {
            query?: {
                /** @description Lines of history to include above the visible screen (default 0, at most 10000). */
                lines?: number;
            };
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Screen"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `NODE_OFFLINE`: a command (launch, ping…) for a node whose link is not online, or for the local node when it is off (no tmux, or `--no-local-node`)
             *     - `SUBSHELL_NOT_RUNNING`: reading the screen of, typing into or resizing a subshell that is not live, or reporting its agent's state
             *     - `NODE_REFUSED`: the node refused a command (`metadata.reason` holds its words)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Bad Gateway. Codes:
             *     - `NODE_LINK_CLOSED`: the node's socket closed before the command's result arrived
             *     - `NODE_BAD_RESULT`: the node answered with a malformed result
             */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Gateway Timeout. Codes:
             *     - `NODE_TIMEOUT`: no result within the command deadline (10 s; 5 min for `update`)
             */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    reportSession: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SessionRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subshell"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `NOT_OWN_SUBSHELL`: a report for a subshell made with another subshell's token or another credential
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listShares: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Share"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    putShare: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The subshell. */
                id: string;
                /** @description The account. */
                userId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ShareRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Share"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteShare: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The subshell. */
                id: string;
                /** @description The account. */
                userId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    reportStatus: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StatusRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subshell"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `NOT_OWN_SUBSHELL`: a report for a subshell made with another subshell's token or another credential
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `SUBSHELL_NOT_RUNNING`: reading the screen of, typing into or resizing a subshell that is not live, or reporting its agent's state
             *     - `STALE_REPORT`: an agent state report whose `observedAt` is older than the newest recorded for the pane (`metadata.latestObservedAt`)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Too Many Requests. Codes:
             *     - `TOO_MANY_REPORTS`: a pane reporting its agent's state or attention past its budget: 30 at once, then 5 a second (`Retry-After` and `metadata.retryAfterMs`)
             */
            429: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    terminateSubshell: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["Empty"] | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subshell"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `NODE_OFFLINE`: a command (launch, ping…) for a node whose link is not online, or for the local node when it is off (no tmux, or `--no-local-node`)
             *     - `INVALID_STATE`: a lifecycle move the subshell's state does not allow; an upload's piece or cancel while another replica writes a piece of it
             *     - `NODE_REFUSED`: the node refused a command (`metadata.reason` holds its words)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Bad Gateway. Codes:
             *     - `NODE_LINK_CLOSED`: the node's socket closed before the command's result arrived
             *     - `NODE_BAD_RESULT`: the node answered with a malformed result
             */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Gateway Timeout. Codes:
             *     - `NODE_TIMEOUT`: no result within the command deadline (10 s; 5 min for `update`)
             */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listSystemKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SystemKey"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createSystemKey: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateSystemKeyRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SystemKeyCreated"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteSystemKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    disableSystemKey: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["Empty"] | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SystemKeyDisabled"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    startUpload: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UploadRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Upload"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `NODE_OFFLINE`: a command (launch, ping…) for a node whose link is not online, or for the local node when it is off (no tmux, or `--no-local-node`)
             *     - `UPLOAD_EXISTS`: an upload to a file that exists (without `overwrite`) or is being uploaded
             *     - `UPLOADS_BUSY`: too many uploads in progress on the plane at once (64 of each kind); try again shortly
             *     - `NODE_REFUSED`: the node refused a command (`metadata.reason` holds its words)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Bad Gateway. Codes:
             *     - `NODE_LINK_CLOSED`: the node's socket closed before the command's result arrived
             *     - `NODE_BAD_RESULT`: the node answered with a malformed result
             */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Gateway Timeout. Codes:
             *     - `NODE_TIMEOUT`: no result within the command deadline (10 s; 5 min for `update`)
             */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getUpload: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Upload"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    cancelUpload: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `INVALID_STATE`: a lifecycle move the subshell's state does not allow; an upload's piece or cancel while another replica writes a piece of it
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    uploadPiece: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The upload. */
                id: string;
                /** @description The piece's index, from 0. */
                index: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PieceRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Upload"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PERMISSION_DENIED`: a subshell's token acting beyond its permission map
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `NODE_OFFLINE`: a command (launch, ping…) for a node whose link is not online, or for the local node when it is off (no tmux, or `--no-local-node`)
             *     - `INVALID_STATE`: a lifecycle move the subshell's state does not allow; an upload's piece or cancel while another replica writes a piece of it
             *     - `UPLOAD_ABANDONED`: an upload piece out of order or of the wrong size: the upload was abandoned, nothing left behind
             *     - `NODE_REFUSED`: the node refused a command (`metadata.reason` holds its words)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Bad Gateway. Codes:
             *     - `NODE_LINK_CLOSED`: the node's socket closed before the command's result arrived
             *     - `NODE_BAD_RESULT`: the node answered with a malformed result
             */
            502: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Gateway Timeout. Codes:
             *     - `NODE_TIMEOUT`: no result within the command deadline (10 s; 5 min for `update`)
             */
            504: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listUsers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CreateUserRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `EMAIL_TAKEN`: creating an account whose email exists
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `CANNOT_DISABLE_SELF`: an administrator disabling, deleting or resetting the password of their own account
             *     - `LAST_ADMIN`: demoting or deleting the last enabled administrator
             *     - `USER_HAS_LIVE_SUBSHELLS`: deleting an account whose subshells still run (`metadata.live`: how many; `metadata.subshells`: their `id` and `name`)
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["UpdateUserRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `LAST_ADMIN`: demoting or deleting the last enabled administrator
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    disableUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["Empty"] | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `CANNOT_DISABLE_SELF`: an administrator disabling, deleting or resetting the password of their own account
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    enableUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["Empty"] | null;
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["User"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    resetPassword: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ResetPasswordRequest"];
            };
        };
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Conflict. Codes:
             *     - `CANNOT_DISABLE_SELF`: an administrator disabling, deleting or resetting the password of their own account
             */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listWorkspaces: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Workspace"][];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PANE_TOKEN_NOT_ALLOWED`: a subshell's token where only a person or a script may act
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    createWorkspace: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WorkspaceRequest"];
            };
        };
        responses: {
            /** @description Created */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Workspace"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PANE_TOKEN_NOT_ALLOWED`: a subshell's token where only a person or a script may act
             *     - `NODE_NOT_ALLOWED`: launching on a node the credential may not use
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getWorkspace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Workspace"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PANE_TOKEN_NOT_ALLOWED`: a subshell's token where only a person or a script may act
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updateWorkspace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WorkspaceRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Workspace"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PANE_TOKEN_NOT_ALLOWED`: a subshell's token where only a person or a script may act
             *     - `NODE_NOT_ALLOWED`: launching on a node the credential may not use
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deleteWorkspace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No Content */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /**
             * @description Bad Request. Codes:
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             *     - `AUTH_HEADER_INVALID`: an `Authorization` header that is not exactly one `Bearer <token>`
             *     - `INVALID_CREDENTIAL`: an unknown, disabled or malformed bearer credential or session
             *     - `NODE_KEY_NOT_ACCEPTED`: a node key presented to REST (it only opens `/ws/node`)
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `PANE_TOKEN_NOT_ALLOWED`: a subshell's token where only a person or a script may act
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    setWorkspaceRecording: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The row's id. */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RecordingRequest"];
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Workspace"];
                };
            };
            /**
             * @description Bad Request. Codes:
             *     - `INPUT_VALIDATION_ERROR`: a body or parameter failed validation (`metadata.field` names it)
             *     - `BAD_REQUEST`: a request the server cannot read: a malformed head, path, framing or body encoding
             */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Unauthorized. Codes:
             *     - `UNAUTHENTICATED`: no credential where one is required
             */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Forbidden. Codes:
             *     - `BEARER_NOT_ALLOWED`: a bearer credential on an admin surface or a cookie-only route
             *     - `ADMIN_REQUIRED`: a signed-in non-admin on an admin surface, or managing the local node (it belongs to the administrators)
             *     - `ORIGIN_REJECTED`: a browser-style state-changing request from an untrusted or missing Origin
             */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Not Found. Codes:
             *     - `NOT_FOUND`: no such route or row
             */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Content Too Large. Codes:
             *     - `PAYLOAD_TOO_LARGE`: a request body over the limit
             */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description URI Too Long. Codes:
             *     - `URI_TOO_LONG`: a request target over 8 KiB
             */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Internal Server Error. Codes:
             *     - `INTERNAL_ERROR`: a server fault, including a panic in a handler
             */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Service Unavailable. Codes:
             *     - `DATABASE_UNAVAILABLE`: no database connection could be had within 10 s (PostgreSQL down or restarting, SQLite unable to open its files), or the plane stopping; `Retry-After`
             */
            503: {
                headers: {
                    /** @description Seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /**
             * @description Status. Codes:
             *     - `STORAGE_FULL`: the plane's disk (or its database's) is full: the request changed nothing; free space on the host and try again
             */
            507: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
}
