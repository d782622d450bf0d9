-- API keys' last use (docs/operations.md#api-keys): written at most once a minute per key. A
-- revoked_at in the future is now a rotation's grace period (the key works until then).
ALTER TABLE "api_keys" ADD COLUMN "last_used_at" timestamp with time zone;