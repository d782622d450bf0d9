-- The audit trail (docs/operations.md#audit-trail): every admin action is a row of admin_audit,
-- with how it ended, and nothing in ladder may change or remove one. The triggers make that a
-- property of the database, not a promise of the code: UPDATE, DELETE and TRUNCATE are refused
-- (a superuser can still drop the triggers, which leaves its own trace in the DDL log).
ALTER TABLE "admin_audit" ADD COLUMN "outcome" text DEFAULT 'ok' NOT NULL;--> statement-breakpoint
CREATE FUNCTION ladder_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'admin_audit is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END $$;
--> statement-breakpoint
CREATE TRIGGER admin_audit_append_only BEFORE UPDATE OR DELETE ON "admin_audit"
  FOR EACH ROW EXECUTE FUNCTION ladder_audit_append_only();
--> statement-breakpoint
CREATE TRIGGER admin_audit_no_truncate BEFORE TRUNCATE ON "admin_audit"
  FOR EACH STATEMENT EXECUTE FUNCTION ladder_audit_append_only();
