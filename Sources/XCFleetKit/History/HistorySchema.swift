import Foundation

/// The history's tables, as forward migrations. Version N is reached by applying steps 1…N in
/// order; a database is never migrated backwards. The same SQL runs on SQLite and PostgreSQL
/// (`DOUBLE PRECISION`, `BIGINT`, `TEXT`, partial indexes and `ON CONFLICT` exist in both).
public enum HistorySchema {
    /// Marks a database as ours (`meta.application`); anything else with tables is foreign.
    public static let application = "xcfleet-history"

    /// Index i holds the statements that take a database from version i to i+1.
    public static let migrations: [[String]] = [
        // 1: runs, jobs, attempts, every test execution, hosts.
        [
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            """
            CREATE TABLE runs (run_id TEXT PRIMARY KEY, plan_name TEXT, plan_path TEXT, content_hash TEXT,
              git_commit TEXT, git_branch TEXT, started_at TEXT, started_epoch DOUBLE PRECISION,
              duration DOUBLE PRECISION, verdict TEXT, exit_code BIGINT, interrupted BIGINT,
              xcfleet_version TEXT, recorded_epoch DOUBLE PRECISION)
            """,
            """
            CREATE TABLE jobs (run_id TEXT NOT NULL, job_id TEXT NOT NULL, suite TEXT, kind TEXT, shard BIGINT,
              shard_count BIGINT, repetition BIGINT, mutant TEXT, content_hash TEXT, final_state TEXT,
              PRIMARY KEY (run_id, job_id))
            """,
            """
            CREATE TABLE attempts (run_id TEXT NOT NULL, job_id TEXT NOT NULL, attempt BIGINT NOT NULL, host TEXT,
              slot BIGINT, start_t DOUBLE PRECISION, end_t DOUBLE PRECISION, infra_error TEXT,
              timed_out_phase TEXT, lost BIGINT, PRIMARY KEY (run_id, job_id, attempt))
            """,
            """
            CREATE TABLE tests (run_id TEXT NOT NULL, job_id TEXT NOT NULL, attempt BIGINT, suite TEXT,
              test_key TEXT NOT NULL, test_class TEXT, name TEXT, contract_ids TEXT, status TEXT,
              seconds DOUBLE PRECISION, flaky BIGINT, host TEXT, lost BIGINT, mutant TEXT,
              content_hash TEXT, started_epoch DOUBLE PRECISION)
            """,
            "CREATE INDEX tests_run ON tests (run_id)",
            "CREATE INDEX tests_suite ON tests (suite, started_epoch)",
            "CREATE TABLE hosts (run_id TEXT NOT NULL, host TEXT NOT NULL, set_aside TEXT, PRIMARY KEY (run_id, host))",
        ],
        // 2: phase spans and probe metrics; indexes for `flaky` and listings.
        [
            """
            CREATE TABLE phases (run_id TEXT NOT NULL, job_id TEXT NOT NULL, attempt BIGINT NOT NULL, phase TEXT NOT NULL,
              host TEXT, start_t DOUBLE PRECISION, end_t DOUBLE PRECISION, PRIMARY KEY (run_id, job_id, attempt, phase))
            """,
            """
            CREATE TABLE metrics (run_id TEXT NOT NULL, job_id TEXT, attempt BIGINT, host TEXT, suite TEXT,
              name TEXT NOT NULL, value DOUBLE PRECISION, unit TEXT, labels TEXT)
            """,
            "CREATE INDEX metrics_run ON metrics (run_id)",
            "CREATE INDEX tests_failed ON tests (test_key) WHERE status = 'failed'",
            "CREATE INDEX tests_key ON tests (test_key, started_epoch)",
            "CREATE INDEX jobs_suite ON jobs (suite)",
            "CREATE INDEX runs_started ON runs (started_epoch)",
        ],
        // 3: cost accounting (host-seconds by phase × price per hour).
        [
            "ALTER TABLE runs ADD COLUMN host_seconds DOUBLE PRECISION",
            "ALTER TABLE runs ADD COLUMN cost DOUBLE PRECISION",
            """
            CREATE TABLE run_costs (run_id TEXT NOT NULL, host TEXT NOT NULL, phase TEXT NOT NULL,
              host_seconds DOUBLE PRECISION, cost DOUBLE PRECISION, PRIMARY KEY (run_id, host, phase))
            """,
        ],
        // 4: where each attempt's build came from (build-cache hit rate, build costs) and what each
        // host is (its class, for durations on comparable hosts).
        [
            """
            CREATE TABLE attempt_builds (run_id TEXT NOT NULL, job_id TEXT NOT NULL, attempt BIGINT NOT NULL, host TEXT,
              origin TEXT NOT NULL, build_key TEXT, base_key TEXT, seconds DOUBLE PRECISION, waited_seconds DOUBLE PRECISION,
              untrusted TEXT, PRIMARY KEY (run_id, job_id, attempt))
            """,
            "CREATE INDEX attempt_builds_host ON attempt_builds (host)",
            "ALTER TABLE hosts ADD COLUMN host_class TEXT",
            "ALTER TABLE hosts ADD COLUMN host_label TEXT",
        ],
        // 5: the SHA-256 of each build's test product, what a later reuse of the key on that host
        // must match (`BuildTrust`).
        [
            "ALTER TABLE attempt_builds ADD COLUMN product_digest TEXT",
            "CREATE INDEX attempt_builds_key ON attempt_builds (host, build_key)",
        ],
        // 6: the run's figures (docs/reporting.md, "The figures") as JSON, what `history` prints.
        [
            "ALTER TABLE runs ADD COLUMN figures TEXT",
        ],
    ]

    public static var currentVersion: Int { migrations.count }

    /// Tables a run's rows live in (deleted and rewritten when a run is recorded again).
    public static let runTables = ["runs", "jobs", "attempts", "tests", "hosts", "phases", "metrics", "run_costs", "attempt_builds"]
}
