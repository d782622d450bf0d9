-- Group boards (docs/design.md#group-boards): how many of a group's best members its total counts.
-- A nullable column: a catalog change.
ALTER TABLE "seasons" ADD COLUMN "group_best_of" integer;