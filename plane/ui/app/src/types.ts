// The shapes the plane's REST API and sockets answer with (plane/src/api/*.rs is the contract;
// the plane serialises them in camelCase and refuses unknown fields in requests).

export type Role = "admin" | "user" | "service";

export interface User {
  id: string;
  email: string;
  displayName: string;
  role: Role;
  disabled: boolean;
}

export interface Whoami extends User {
  isAdmin: boolean;
  via: "session" | "system_key" | "pane";
}

export interface InstanceSettings {
  displayName: string;
}

export interface PublicSettings {
  trustedOrigins: string[];
}

export type SubshellState =
  | "starting"
  | "running"
  | "stopping"
  | "stopped"
  | "exited"
  | "crashed"
  | "failed";

export type SubshellStatus =
  | "starting"
  | "running"
  | "needs_attention"
  | "node_unreachable"
  | "stopping"
  | "stopped"
  | "exited"
  | "crashed"
  | "failed";

export type Access = "read" | "write";

export interface Permissions {
  channels: Access;
  subshells: Access;
}

export interface Subshell {
  id: string;
  name: string;
  ownerUserId: string;
  nodeId: string;
  harnessId: string;
  cwd: string;
  presetId: string | null;
  workspaceId: string | null;
  state: SubshellState;
  status: SubshellStatus;
  nodeReachable: boolean;
  exitCode: number | null;
  error: string | null;
  cols: number;
  rows: number;
  attention: "none" | "needs_input" | "done";
  attentionAt: number | null;
  harnessSessionId: string | null;
  permissions: Permissions;
  tokenExpiresAt: number | null;
  autoRestart: boolean;
  restarts: number;
  promptState: string;
  parentSubshellId: string | null;
  createdBy: "cookie" | "system_key" | "pane";
  createdAt: number;
  updatedAt: number;
  startedAt: number | null;
  endedAt: number | null;
  warning: string | null;
}

export interface LaunchRequest {
  nodeId: string;
  harnessId: string;
  workspaceId?: string;
  cwd?: string;
  presetId?: string;
  name?: string;
  cols?: number;
  rows?: number;
  prompt?: string;
  permissions?: Permissions;
  resume?: string;
}

export interface MaintenanceMirror {
  on: boolean;
  changedAt: string;
}

export interface Node {
  nodeId: string;
  name: string;
  os: string;
  arch: string;
  hostname: string;
  agentVersion: string;
  identityJwk: unknown;
  encryptPublicKey: string | null;
  liveness: "online" | "offline";
  runtime: Record<string, unknown> | null;
  maintenance: MaintenanceMirror | null;
  allowedDirs: string[];
  isLocal: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface HeldNode {
  nodeId: string;
  name: string | null;
  agentVersion: string | null;
  liveness: "online" | "offline" | null;
  reason: string;
}

export interface HeldNodes {
  minNodeVersion: string;
  held: HeldNode[];
  belowFloor: { nodeId: string; name: string; agentVersion: string }[];
}

export interface NodeUpdateOutcome {
  nodeId: string;
  name: string;
  fromVersion: string;
  toVersion: string;
  ok: boolean;
  reason: string | null;
}

export interface MaintenanceSet {
  on: boolean;
  changedAt: string;
  pushed: boolean;
}

export interface NodePing {
  ok: boolean;
  rttMs: number;
  error?: string;
}

export interface NodeKeyRotated {
  nodeId: string;
  nodeKey: string;
}

export interface HarnessStatus {
  harnessId: string;
  name: string;
  enabled: boolean;
  installed: boolean;
  version: string | null;
  binaryPath: string | null;
  reason: string | null;
  checkedAt: number | null;
  launchable: boolean;
  whyNot: string | null;
}

export interface Plugin {
  id: string;
  name: string;
  description: string;
  kind: string;
  enabled: boolean;
  resume: boolean;
}

export interface Workspace {
  id: string;
  ownerUserId: string;
  name: string;
  nodeId: string;
  path: string;
  createdAt: number;
  updatedAt: number;
}

export interface Preset {
  id: string;
  ownerUserId: string;
  name: string;
  harnessId: string | null;
  env: Record<string, string>;
  flags: string[];
  settings: Record<string, unknown> | null;
  configIsolation: boolean;
  autoRestart: boolean;
  createdAt: number;
  updatedAt: number;
}

export interface SystemKey {
  id: string;
  name: string;
  preview: string;
  enabled: boolean;
  createdAt: number;
}

export interface SystemKeyCreated extends SystemKey {
  key: string;
}

export interface SetupKey {
  id: string;
  key: string | null;
  preview: string;
  status: "active" | "used" | "expired" | "revoked";
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
  usedByNodeId: string | null;
  revokedAt: number | null;
}

export interface AuditEntry {
  id: number;
  at: number;
  actorUserId: string | null;
  actorKind: "cookie" | "system_key" | "setup_key" | "pane" | "plane";
  action: string;
  target: string | null;
  detail: unknown;
}

export interface Share {
  subshellId: string;
  userId: string;
  access: Access;
  grantedBy: string;
  createdAt: number;
  updatedAt: number;
}

export interface WsToken {
  token: string;
  expiresAt: number;
  subshellId: string | null;
}

export interface Upload {
  uploadId: string;
  subshellId: string;
  path: string;
  size: number;
  pieceBytes: number;
  pieces: number;
  received: number;
  done: boolean;
}

export interface Passkey {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
}

export interface Viewer {
  viewerId: number;
  userId: string;
  displayName: string;
  readOnly: boolean;
  cols: number | null;
  rows: number | null;
}

/** Text frames of the terminal socket, from the plane. */
export type ServerFrame =
  | { type: "attached"; viewerId: number; subshellId: string; readOnly: boolean; cols: number; rows: number }
  | { type: "size"; cols: number; rows: number }
  | { type: "presence"; viewers: Viewer[] }
  | { type: "resync"; reason: string }
  | { type: "pong" }
  | { type: "error"; code: string; message: string }
  | { type: "exit"; exitCode: number | null };

/** Text frames of the whole-user live feed. */
export type FeedFrame =
  | { type: "hello"; userId: string }
  | { type: "subshell"; subshell: Subshell }
  | { type: "subshell_gone"; subshellId: string }
  | { type: "node"; nodeId: string; liveness: "online" | "offline" }
  | { type: "presence"; subshellId: string; viewers: Viewer[] }
  | { type: "notification"; notification: Notification }
  | { type: "channel_entry"; channelId: string; seq: number; hash: string }
  | { type: "pong" };

export interface TrustedOrigins {
  configured: string[];
  added: string[];
}

export interface AdminStatus {
  version: string;
  uptimeSecs: number;
  database: string;
  databaseBytes: number | null;
  nodesByLiveness: Record<string, number>;
  nodesByVersion: Record<string, number>;
  heldNodes: number;
  localNode: boolean;
  subshellsByState: Record<string, number>;
}

export interface NodeDownload {
  platform: string;
  url: string;
  bytes: number;
  sha256: string;
}

export interface Deployment {
  version: string;
  listen: string[];
  baseUrl: string;
  dataDir: string | null;
  database: string;
  trustedOrigins: string[];
  nodeDownloads: NodeDownload[];
}

export type NotificationKind = "needs_input" | "exited" | "crashed" | "node_offline";

export interface Notification {
  id: string;
  kind: NotificationKind;
  subjectId: string;
  title: string;
  body: string;
  createdAt: number;
  readAt: number | null;
}

export interface NotificationPrefs {
  needsInput: boolean;
  exited: boolean;
  crashed: boolean;
  nodeOffline: boolean;
}

export interface Device {
  id: string;
  name: string;
  pushService: string;
  createdAt: number;
  lastSentAt: number | null;
  lastError: string | null;
}

export interface VapidKey {
  publicKey: string;
}

/** `POST /api/devices`: a `PushSubscription.toJSON()` and a name. */
export interface DeviceRequest {
  name: string;
  endpoint: string;
  keys: { p256dh: string; auth: string };
  expirationTime: number | null;
}

export interface KeptFile {
  id: string;
  name: string;
  size: number;
  sha256: string;
  createdAt: number;
}

export interface FileUpload {
  fileId: string;
  name: string;
  size: number;
  pieceBytes: number;
  pieces: number;
  received: number;
  done: boolean;
}

/** A P-256 public key as a JWK. */
export interface PublicJwk {
  kty: "EC";
  crv: "P-256";
  x: string;
  y: string;
}

export interface Identity {
  id: string;
  name: string;
  publicKey: PublicJwk;
  /** RFC 7638 thumbprint of the public key. */
  thumbprint: string;
  owner: { userId: string | null; subshellId: string | null };
  createdAt: number;
  revokedAt: number | null;
}

/** A channel's newest entry (`seq` 0 and 64 zeros when it is empty). */
export interface ChannelHead {
  seq: number;
  hash: string;
}

export interface Channel {
  id: string;
  name: string;
  description: string;
  ownerUserId: string;
  /** What the caller may do. */
  access: Access;
  head: ChannelHead;
  createdAt: number;
}

export interface ChannelMember {
  userId: string;
  email: string;
  access: Access;
  owner: boolean;
}

export type EntryProblem = "UNREADABLE" | "HASH" | "SIGNATURE" | "CHAIN";

export interface ChannelEntry {
  channelId: string;
  seq: number;
  identityId: string;
  prev: string;
  hash: string;
  signature: string;
  /** The text (null when the plane could not decrypt it). */
  body: string | null;
  author: { name: string; userId: string | null; subshellId: string | null; thumbprint: string };
  createdAt: number;
  /** Whether every check the plane made as it read the entry held. */
  verified: boolean;
  problem: EntryProblem | null;
}

export interface EntryPage {
  entries: ChannelEntry[];
  /** The cursor (`after`) for the next page. */
  next: number;
  head: ChannelHead;
}
