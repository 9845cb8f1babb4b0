-- 019: a coordinator's right to a group (KG) belongs to one league: group names repeat
-- across cities (`KG 1` of one league is not `KG 1` of another), and a right to `KG 1`
-- followed the players registered in `KG 1` in every league's registry. A right stored
-- before is kept in each league whose registry has that group (what it reached before),
-- or in the league 'default' where none has it yet.
CREATE TABLE user_group_rights (
    name     VARCHAR NOT NULL,
    league   VARCHAR NOT NULL,
    "group"  VARCHAR NOT NULL,
    PRIMARY KEY (name, league, "group")
);
INSERT INTO user_group_rights (name, league, "group")
SELECT DISTINCT g.name, coalesce(k.league, 'default'), g."group"
FROM user_groups g
LEFT JOIN (
    SELECT league, "group" FROM memberships
    UNION
    SELECT league, reserve_for FROM league_players WHERE reserve_for IS NOT NULL
) k ON k."group" = g."group";
DROP TABLE user_groups;
ALTER TABLE user_group_rights RENAME TO user_groups;
