-- 005: the family of scoring models an event's ruleset uses (its `models` key: the folder
-- pipeline/sql/models/<models>/). The standings views choose their rules by it, so a
-- ruleset that extends another (its `extends` key) gets the same round, event and group
-- standings. Events loaded before this migration play the built-in rulesets, whose models
-- carry their own names.
ALTER TABLE events ADD COLUMN models VARCHAR;
UPDATE events SET models = ruleset WHERE models IS NULL;
