-- 009: roles, lasting sign-ins and change requests (RULES.md, pepet rule 24).
-- A user has one role: coordinator (of events and/or groups), jury (of events) or admin.
-- Users who existed before roles were coordinators of their events, and stay so.
ALTER TABLE users ADD COLUMN role VARCHAR DEFAULT 'coordinator';
UPDATE users SET role = 'coordinator' WHERE role IS NULL;

-- The groups (KG) a coordinator looks after: the events their group's players play in.
CREATE TABLE user_groups (
    name     VARCHAR NOT NULL,
    "group"  VARCHAR NOT NULL,
    PRIMARY KEY (name, "group")
);

-- The key that signs sign-in cookies, generated once on first use.
CREATE TABLE auth_secret (
    id          INTEGER PRIMARY KEY,
    secret      VARCHAR NOT NULL,
    created_at  TIMESTAMP NOT NULL
);

-- Every lasting sign-in (a cookie carries its id and signature); sign-out revokes them.
CREATE TABLE sign_ins (
    session_id  VARCHAR PRIMARY KEY,
    name        VARCHAR NOT NULL,
    created_at  TIMESTAMP NOT NULL,
    expires_at  TIMESTAMP NOT NULL,
    revoked_at  TIMESTAMP
);

CREATE SEQUENCE change_request_seq START 1;

-- A coordinator's correction of loaded matches, waiting for the jury of their events.
CREATE TABLE change_requests (
    request_id       BIGINT PRIMARY KEY,
    status           VARCHAR NOT NULL,       -- pending | approved | rejected | stale
    event_choice     VARCHAR,                -- the upload's event and ruleset choices
    ruleset_choice   VARCHAR,
    requested_by     VARCHAR NOT NULL,
    requested_at     TIMESTAMP NOT NULL,
    reason           VARCHAR NOT NULL,
    decided_by       VARCHAR,
    decided_at       TIMESTAMP,
    decision_reason  VARCHAR,
    ingest_id        BIGINT                  -- the load that applied it
);

-- The matches a request changes and the version each was at when it was asked for.
CREATE TABLE change_request_matches (
    request_id       BIGINT NOT NULL,
    event            VARCHAR NOT NULL,
    round            VARCHAR NOT NULL,
    "table"          VARCHAR NOT NULL,
    base_version     INTEGER NOT NULL,       -- 0: not loaded when asked
    applied_version  INTEGER,
    PRIMARY KEY (request_id, event, round, "table")
);

-- The uploaded hand-log files, byte for byte: approval loads exactly these.
CREATE TABLE change_request_files (
    request_id  BIGINT NOT NULL,
    file_no     INTEGER NOT NULL,
    name        VARCHAR NOT NULL,
    content     BLOB NOT NULL,
    PRIMARY KEY (request_id, file_no)
);

-- A photo or scan of the paper record (rule 20): PNG, JPEG, WebP or PDF, checked by content.
CREATE TABLE change_request_attachments (
    request_id    BIGINT PRIMARY KEY,
    name          VARCHAR NOT NULL,
    content_type  VARCHAR NOT NULL,
    size          BIGINT NOT NULL,
    content       BLOB NOT NULL
);
