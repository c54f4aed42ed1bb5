"""workflow: workflow_expect(ok, what), the check a pipelined write carries (PostgreSQL)

Revision ID: workflow_0002
Revises: workflow_0001
Create Date: 2026-11-30

A conditional UPDATE normally reports a lost race through its row count, which only arrives
with the result — too late for a transaction whose writes and COMMIT travel together in one
pipeline. The unit of work instead puts ``workflow_expect(<condition>, '<what>')`` in such an
UPDATE's WHERE clause: true when the condition holds, an error (SQLSTATE 40001, message
``what``) when it does not, so the pipeline aborts before its COMMIT.
"""

from alembic import op

revision = "workflow_0002"
down_revision = "workflow_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(
        """
        CREATE OR REPLACE FUNCTION workflow_expect(ok boolean, what text) RETURNS boolean
        LANGUAGE plpgsql VOLATILE COST 1000 AS $$
        BEGIN
          IF ok IS NOT TRUE THEN
            RAISE EXCEPTION USING ERRCODE = '40001', MESSAGE = what;
          END IF;
          RETURN true;
        END
        $$
        """
    )


def downgrade() -> None:
    raise RuntimeError("Tramita migrations are forward-only: a downgrade never drops data")
