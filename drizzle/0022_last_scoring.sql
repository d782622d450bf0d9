ALTER TYPE "public"."scoring_mode" ADD VALUE 'LAST';
