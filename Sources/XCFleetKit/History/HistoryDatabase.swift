import Foundation
#if canImport(Glibc)
import Glibc
#endif
import XCFleetBasics
import XCFleetModel
import XCFleetCore

/// The one `HistoryStore` implementation: the same schema and the same SQL on either backend
/// (`SQLiteConnection`, `PostgresConnection`). Every database call runs on the store's own serial
/// queue — blocking C calls never run on the Swift concurrency pool — and is bridged back with a
/// continuation. A busy database (another xcfleet writing) is retried.
public final class HistoryDatabase: HistoryStore, @unchecked Sendable {
    public struct Options: Sendable {
        /// How long SQLite waits for another writer before a retry.
        public var busyTimeout: Double = 10
        /// Retries after a busy error (each after the busy timeout).
        public var retries: Int = 3
        /// PostgreSQL connect timeout, whole seconds (libpq's minimum is 2).
        public var connectTimeout: Int = 5
        /// PostgreSQL statement timeout.
        public var statementTimeout: Double = 20
        /// A libpq password file (`host:port:db:user:password` lines) for a URL without a password.
        public var passfile: String?
        public init() {}
    }

    public let location: HistoryLocation
    private let options: Options
    private let queue: DispatchQueue
    /// Only touched on `queue`.
    private var connection: (any SQLConnection)?

    private init(location: HistoryLocation, options: Options) {
        self.location = location
        self.options = options
        queue = DispatchQueue(label: "xcfleet.history")
    }

    /// Opens the database, creating or migrating its schema. Throws `HistoryError`.
    public static func open(_ location: HistoryLocation, options: Options = Options()) async throws -> HistoryDatabase {
        let db = HistoryDatabase(location: location, options: options)
        try await db.onQueue { db.connection = try db.connect(); try db.migrate(db.connection!) }
        return db
    }

    public func close() async {
        _ = try? await onQueue { self.connection?.close(); self.connection = nil }
    }

    // MARK: Writes

    public func record(_ record: HistoryRecord) async throws {
        try await withConnection { c in
            try c.transaction {
                for table in HistorySchema.runTables {
                    try c.execute("DELETE FROM \(table) WHERE run_id = ?", [.text(record.runID)])
                }
                for table in HistorySchema.runTables {
                    guard let rows = record.rows[table], !rows.isEmpty, let columns = HistoryRecord.columns[table] else { continue }
                    try c.insertMany(table: table, columns: columns, rows: rows)
                }
            }
        }
    }

    // MARK: Queries

    private static let lastRunsOfSuite = """
        SELECT j.run_id FROM jobs j JOIN runs r ON r.run_id = j.run_id WHERE j.suite = ? AND j.mutant IS NULL
        GROUP BY j.run_id, r.started_epoch ORDER BY r.started_epoch DESC LIMIT ?
        """

    public func durations(suites: [String], lastRuns: Int) async throws -> DurationHistory {
        try await durations(suites: suites, lastRuns: lastRuns, comparableTo: [])
    }

    public func durations(suites: [String], lastRuns: Int, comparableTo hosts: [String]) async throws -> DurationHistory {
        let all = try await allHostDurations(suites: suites, lastRuns: lastRuns)
        guard !hosts.isEmpty else { return ComparableDurations.choose(comparable: ComparableDurations.Samples(), all: all).history }
        let comparable: ComparableDurations.Samples = try await withConnection { c in
            // The classes the fleet's hosts had when last recorded.
            let hostMarks = Array(repeating: "?", count: hosts.count).joined(separator: ",")
            var latest: [String: String] = [:]
            for r in try c.query("""
                SELECT h.host, h.host_class FROM hosts h JOIN runs r ON r.run_id = h.run_id
                WHERE h.host IN (\(hostMarks)) AND h.host_class IS NOT NULL ORDER BY r.started_epoch ASC
                """, hosts.map { .text($0) }) {
                if let host = r[0].string, let cls = r[1].string { latest[host] = cls }
            }
            let classes = Set(latest.values).sorted().map { SQLValue.text($0) }
            var samples = ComparableDurations.Samples()
            guard !classes.isEmpty else { return samples }
            let classMarks = Array(repeating: "?", count: classes.count).joined(separator: ",")
            samples.builds = try Self.buildSamples(c, suites: suites, classes: classes)
            for suite in suites {
                let runs = try c.query("""
                    SELECT j.run_id FROM jobs j JOIN runs r ON r.run_id = j.run_id
                    JOIN attempts a ON a.run_id = j.run_id AND a.job_id = j.job_id
                    JOIN hosts h ON h.run_id = a.run_id AND h.host = a.host
                    WHERE j.suite = ? AND j.mutant IS NULL AND h.host_class IN (\(classMarks))
                    GROUP BY j.run_id, r.started_epoch ORDER BY r.started_epoch DESC LIMIT ?
                    """, [.text(suite)] + classes + [SQLValue(lastRuns)]).compactMap { $0.first }
                guard !runs.isEmpty else { continue }
                let marks = Array(repeating: "?", count: runs.count).joined(separator: ",")
                for row in try c.query("""
                    SELECT t.test_key, t.seconds FROM tests t JOIN hosts h ON h.run_id = t.run_id AND h.host = t.host
                    WHERE t.suite = ? AND t.lost = 0 AND t.mutant IS NULL AND t.seconds IS NOT NULL
                    AND h.host_class IN (\(classMarks)) AND t.run_id IN (\(marks))
                    """, [.text(suite)] + classes + runs) {
                    if let key = row[0].string, let s = row[1].double { samples.tests[suite, default: [:]][key, default: []].append(s) }
                }
                for row in try c.query("""
                    SELECT a.end_t - a.start_t FROM attempts a JOIN jobs j ON j.run_id = a.run_id AND j.job_id = a.job_id
                    JOIN hosts h ON h.run_id = a.run_id AND h.host = a.host
                    WHERE j.suite = ? AND j.mutant IS NULL AND a.lost = 0 AND a.end_t IS NOT NULL AND a.infra_error IS NULL
                    AND h.host_class IN (\(classMarks)) AND a.run_id IN (\(marks))
                    """, [.text(suite)] + classes + runs) {
                    if let s = row[0].double { samples.attempts[suite, default: []].append(s) }
                }
            }
            return samples
        }
        return ComparableDurations.choose(comparable: comparable, all: all).history
    }

    /// Every host's samples from the last `lastRuns` runs of each suite.
    private func allHostDurations(suites: [String], lastRuns: Int) async throws -> ComparableDurations.Samples {
        try await withConnection { c in
            var tests: [String: [String: [Double]]] = [:]
            var walls: [String: [Double]] = [:]
            for suite in suites {
                let runs = try c.query(Self.lastRunsOfSuite, [.text(suite), SQLValue(lastRuns)]).compactMap { $0.first }
                guard !runs.isEmpty else { continue }
                let marks = Array(repeating: "?", count: runs.count).joined(separator: ",")
                for row in try c.query("""
                    SELECT test_key, seconds FROM tests WHERE suite = ? AND lost = 0 AND mutant IS NULL
                    AND seconds IS NOT NULL AND run_id IN (\(marks))
                    """, [.text(suite)] + runs) {
                    if let key = row[0].string, let s = row[1].double { tests[suite, default: [:]][key, default: []].append(s) }
                }
                for row in try c.query("""
                    SELECT a.end_t - a.start_t FROM attempts a JOIN jobs j ON j.run_id = a.run_id AND j.job_id = a.job_id
                    WHERE j.suite = ? AND j.mutant IS NULL AND a.lost = 0 AND a.end_t IS NOT NULL AND a.infra_error IS NULL
                    AND a.run_id IN (\(marks))
                    """, [.text(suite)] + runs) {
                    if let s = row[0].double { walls[suite, default: []].append(s) }
                }
            }
            return ComparableDurations.Samples(tests: tests, attempts: walls, builds: try Self.buildSamples(c, suites: suites, classes: []))
        }
    }

    /// Build seconds by origin (`cold`, `incremental`, `cached`; lock waits left out), newest first,
    /// at most `ComparableDurations.buildSamples` each, from builds of these suites' jobs — on hosts
    /// of `classes` when given.
    private static func buildSamples(_ c: any SQLConnection, suites: [String], classes: [SQLValue]) throws -> [String: [Double]] {
        guard !suites.isEmpty else { return [:] }
        let suiteMarks = Array(repeating: "?", count: suites.count).joined(separator: ",")
        let classFilter = classes.isEmpty ? "" : """
            JOIN hosts h ON h.run_id = b.run_id AND h.host = b.host
            AND h.host_class IN (\(Array(repeating: "?", count: classes.count).joined(separator: ",")))
            """
        var out: [String: [Double]] = [:]
        for r in try c.query("""
            SELECT b.origin, b.seconds - COALESCE(b.waited_seconds, 0) FROM attempt_builds b
            JOIN jobs j ON j.run_id = b.run_id AND j.job_id = b.job_id JOIN runs r ON r.run_id = b.run_id \(classFilter)
            WHERE j.suite IN (\(suiteMarks)) AND b.seconds IS NOT NULL
            ORDER BY r.started_epoch DESC, b.run_id DESC LIMIT ?
            """, classes + suites.map { .text($0) } + [SQLValue(ComparableDurations.buildSamples * 10)]) {
            guard let origin = r[0].string, let seconds = r[1].double, seconds.isFinite, seconds >= 0 else { continue }
            if out[origin, default: []].count < ComparableDurations.buildSamples { out[origin, default: []].append(seconds) }
        }
        return out
    }

    /// The builds xcfleet made (cold or incremental) on `hosts`, with their product digests: what a
    /// cached build there must match (`BuildTrust`). For a key built more than once (evicted, then
    /// built again), the newest record.
    public func trustedBuilds(hosts: [String]) async throws -> [BuildTrust.Entry] {
        guard !hosts.isEmpty else { return [] }
        return try await withConnection { c in
            var newest: [String: BuildTrust.Entry] = [:]
            let marks = Array(repeating: "?", count: hosts.count).joined(separator: ",")
            for r in try c.query("""
                SELECT b.host, b.build_key, b.product_digest FROM attempt_builds b JOIN runs r ON r.run_id = b.run_id
                WHERE b.host IN (\(marks)) AND b.origin IN ('cold', 'incremental') AND b.product_digest IS NOT NULL
                ORDER BY r.started_epoch, b.run_id, b.job_id, b.attempt
                """, hosts.map { .text($0) }) {
                guard let host = r[0].string, let key = r[1].string, let product = r[2].string else { continue }
                newest[host + "\u{0}" + key] = BuildTrust.Entry(host: host, key: key, product: product)
            }
            return newest.values.sorted { ($0.host, $0.key) < ($1.host, $1.key) }
        }
    }

    public func flakyCandidates(since: Double) async throws -> [FlakyExecution] {
        try await withConnection { c in
            // Commits per run apart: joining them into every test row costs more than the rest.
            var commits: [String: String] = [:]
            for r in try c.query("SELECT run_id, git_commit FROM runs WHERE started_epoch >= ? AND git_commit IS NOT NULL", [.real(since)]) {
                if let id = r[0].string, let commit = r[1].string { commits[id] = commit }
            }
            return try c.query("""
                SELECT test_key, suite, run_id, job_id, attempt, status, host, content_hash, started_epoch FROM tests
                WHERE test_key IN (SELECT DISTINCT test_key FROM tests WHERE status = 'failed' AND started_epoch >= ?
                                   AND lost = 0 AND mutant IS NULL)
                AND started_epoch >= ? AND lost = 0 AND mutant IS NULL
                """, [.real(since), .real(since)]).map { r in
                let run = r[2].string ?? ""
                return FlakyExecution(testKey: r[0].string ?? "", suite: r[1].string ?? "", runID: run, jobID: r[3].string ?? "",
                                      attempt: r[4].int ?? 0, passed: r[5].string == "passed", failed: r[5].string == "failed",
                                      host: r[6].string ?? "", contentHash: r[7].string, startedEpoch: r[8].double ?? 0, gitCommit: commits[run])
            }
        }
    }

    public func runs(limit: Int) async throws -> [HistoryRun] {
        try await withConnection { c in
            try c.query("""
                SELECT r.run_id, r.plan_name, r.started_at, r.duration, r.verdict, r.exit_code, r.interrupted, r.git_commit,
                  r.host_seconds, r.cost, r.figures,
                  (SELECT SUM(p.end_t - p.start_t) FROM phases p WHERE p.run_id = r.run_id AND p.phase = 'build'),
                  (SELECT COUNT(*) FROM tests t WHERE t.run_id = r.run_id)
                FROM runs r ORDER BY r.started_epoch DESC, r.run_id DESC LIMIT ?
                """, [SQLValue(limit)]).map { r in
                HistoryRun(runID: r[0].string ?? "", planName: r[1].string ?? "", startedAt: r[2].string ?? "", duration: r[3].double ?? 0,
                           verdict: r[4].string ?? "", exitCode: r[5].int ?? 0, interrupted: (r[6].int ?? 0) != 0, gitCommit: r[7].string,
                           hostSeconds: r[8].double, cost: r[9].double, buildSeconds: r[11].double, tests: r[12].int ?? 0,
                           figures: HistoryRecord.figures(r[10].string))
            }
        }
    }

    public func hostHistory(since: Double) async throws -> [HostHistory] {
        try await withConnection { c in
            var out: [String: HostHistory] = [:]
            func entry(_ host: String) -> HostHistory {
                out[host] ?? HostHistory(host: host, attempts: 0, infraFailures: 0, deadPeerEvents: 0, setAside: 0, runs: 0)
            }
            for r in try c.query("""
                SELECT a.host, COUNT(*),
                  SUM(CASE WHEN a.infra_error IS NOT NULL THEN 1 ELSE 0 END),
                  SUM(CASE WHEN a.infra_error LIKE '%dead peer%' OR a.infra_error LIKE '%connection lost%' THEN 1 ELSE 0 END),
                  COUNT(DISTINCT a.run_id)
                FROM attempts a JOIN runs r ON r.run_id = a.run_id WHERE r.started_epoch >= ? GROUP BY a.host
                """, [.real(since)]) {
                guard let host = r[0].string else { continue }
                var h = entry(host)
                h.attempts = r[1].int ?? 0
                h.infraFailures = r[2].int ?? 0
                h.deadPeerEvents = r[3].int ?? 0
                h.runs = r[4].int ?? 0
                out[host] = h
            }
            for r in try c.query("""
                SELECT h.host, COUNT(*) FROM hosts h JOIN runs r ON r.run_id = h.run_id
                WHERE r.started_epoch >= ? AND h.set_aside IS NOT NULL AND h.set_aside NOT LIKE 'history:%' GROUP BY h.host
                """, [.real(since)]) {
                guard let host = r[0].string else { continue }
                var h = entry(host)
                h.setAside = r[1].int ?? 0
                out[host] = h
            }
            var spans: [String: [String: [Double]]] = [:]
            for r in try c.query("""
                SELECT p.host, p.phase, p.end_t - p.start_t FROM phases p JOIN runs r ON r.run_id = p.run_id
                WHERE r.started_epoch >= ? AND p.phase IN ('connect', 'push', 'build') AND p.end_t IS NOT NULL
                """, [.real(since)]) {
                if let host = r[0].string, let phase = r[1].string, let s = r[2].double { spans[host, default: [:]][phase, default: []].append(s) }
            }
            for r in try c.query("""
                SELECT b.host, COUNT(*), SUM(CASE WHEN b.origin = 'cached' THEN 1 ELSE 0 END)
                FROM attempt_builds b JOIN runs r ON r.run_id = b.run_id WHERE r.started_epoch >= ? GROUP BY b.host
                """, [.real(since)]) {
                guard let host = r[0].string else { continue }
                var h = entry(host)
                h.builds = r[1].int ?? 0
                h.cachedBuilds = r[2].int ?? 0
                out[host] = h
            }
            for r in try c.query("""
                SELECT h.host, h.host_class, h.host_label FROM hosts h JOIN runs r ON r.run_id = h.run_id
                WHERE r.started_epoch >= ? AND h.host_class IS NOT NULL ORDER BY r.started_epoch ASC
                """, [.real(since)]) {
                guard let host = r[0].string, out[host] != nil else { continue }
                out[host]?.hostClass = r[1].string
                out[host]?.label = r[2].string
            }
            for (host, phases) in spans {
                var h = entry(host)
                h.medianConnectSeconds = phases["connect"].flatMap { Statistics.median($0) }
                h.medianPushSeconds = phases["push"].flatMap { Statistics.median($0) }
                h.medianBuildSeconds = phases["build"].flatMap { Statistics.median($0) }
                out[host] = h
            }
            return out.values.sorted { $0.host < $1.host }
        }
    }

    public func trends(planName: String, lastRuns: Int) async throws -> HistoryTrends {
        try await withConnection { c in
            let runs = try c.query("SELECT run_id FROM runs WHERE plan_name = ? ORDER BY started_epoch DESC, run_id DESC LIMIT ?",
                                   [.text(planName), SQLValue(lastRuns)]).compactMap { $0.first?.string }.reversed()
            var trends = HistoryTrends()
            guard !runs.isEmpty else { return trends }
            let order = Dictionary(uniqueKeysWithValues: runs.enumerated().map { ($1, $0) })
            let marks = Array(repeating: "?", count: runs.count).joined(separator: ",")
            let ids = runs.map { SQLValue.text($0) }
            var gates: [String: [String: (ok: Bool, seconds: Double)]] = [:]
            for r in try c.query("""
                SELECT j.run_id, j.suite, j.final_state, MAX(a.end_t - a.start_t) FROM jobs j
                LEFT JOIN attempts a ON a.run_id = j.run_id AND a.job_id = j.job_id
                WHERE j.kind = 'gate' AND j.mutant IS NULL AND j.run_id IN (\(marks))
                GROUP BY j.run_id, j.job_id, j.suite, j.final_state
                """, ids) {
                guard let run = r[0].string, let suite = r[1].string else { continue }
                let ok = r[2].string == JobFinalState.passed.rawValue
                let old = gates[suite]?[run] ?? (true, 0)
                gates[suite, default: [:]][run] = (old.ok && ok, max(old.seconds, r[3].double ?? 0))
            }
            for (suite, perRun) in gates {
                let sorted = perRun.sorted { order[$0.key]! < order[$1.key]! }
                trends.gatePassed[suite] = sorted.map { .init(runID: $0.key, value: $0.value.ok ? 1 : 0) }
                trends.gateSeconds[suite] = sorted.map { .init(runID: $0.key, value: $0.value.seconds) }
            }
            var metrics: [String: [String: [Double]]] = [:]
            for r in try c.query("SELECT run_id, name, unit, value FROM metrics WHERE run_id IN (\(marks))", ids) {
                guard let run = r[0].string, let name = r[1].string, let v = r[3].double else { continue }
                let unit = r[2].string ?? ""
                metrics[unit.isEmpty ? name : "\(name) (\(unit))", default: [:]][run, default: []].append(v)
            }
            for (name, perRun) in metrics {
                trends.metrics[name] = perRun.sorted { order[$0.key]! < order[$1.key]! }
                    .compactMap { run, values in Statistics.median(values).map { .init(runID: run, value: $0) } }
            }
            return trends
        }
    }

    // MARK: Plumbing

    /// Runs `body` on the store's queue with the connection, retrying while the database is busy.
    private func withConnection<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) throws -> T) async throws -> T {
        try await onQueue {
            guard let c = self.connection else { throw HistoryError(.other, "\(self.location): history is closed") }
            var attempt = 0
            while true {
                do {
                    return try body(c)
                } catch let error as SQLError where error.kind == .busy && attempt < self.options.retries {
                    attempt += 1
                    Thread.sleep(forTimeInterval: 0.05 * Double(attempt))
                }
            }
        }
    }

    private func onQueue<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let location = self.location
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                do {
                    continuation.resume(returning: try body())
                } catch let error as SQLError {
                    continuation.resume(throwing: HistoryError(error, location: location))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    private func connect() throws -> any SQLConnection {
        switch location {
        case .sqlite(let path):
            // Nothing is created or written before the file is known to be the user's own and ours.
            if let problem = Self.sqliteFileProblem(path) { throw HistoryError(.foreign, problem) }
            let dir = (path as NSString).deletingLastPathComponent
            if !dir.isEmpty { try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
            var attempt = 0
            while true {
                var opened: SQLiteConnection?
                do {
                    let c = try SQLiteConnection(path: path, busyTimeout: options.busyTimeout, journalMode: nil)
                    opened = c
                    try refuseForeign(c)
                    try c.useWriteAheadLog()
                    return c
                } catch let error as SQLError where error.kind == .busy && attempt < options.retries {
                    // Another process is switching the same new file to WAL: SQLite answers busy at
                    // once (no busy handler for that), so look again shortly (on the store's queue).
                    opened?.close()
                    attempt += 1
                    Thread.sleep(forTimeInterval: 0.05 * Double(attempt))
                } catch {
                    opened?.close()
                    throw error
                }
            }
        case .postgres(let url):
            return try PostgresConnection(url: url, connectTimeout: options.connectTimeout, statementTimeout: options.statementTimeout,
                                          passfile: options.passfile)
        }
    }

    /// Creates the schema or applies the missing forward migrations, in one transaction (two
    /// processes opening a new database at once: the second waits, then finds it current).
    private func migrate(_ c: any SQLConnection) throws {
        var attempt = 0
        while true {
            do {
                try c.transaction {
                    if c.dialect == .postgresql { _ = try c.query("SELECT pg_advisory_xact_lock(7318)", []) }
                    let tables = try c.tableNames()
                    var version = 0
                    if tables.contains("meta") {
                        let meta = try Self.meta(c)
                        guard meta["application"] == HistorySchema.application else { throw foreign(tables) }
                        version = Int(meta["schema_version"] ?? "") ?? 0
                    } else if !tables.isEmpty {
                        throw foreign(tables)
                    }
                    if version > HistorySchema.currentVersion {
                        throw newerSchema(version)
                    }
                    guard version < HistorySchema.currentVersion else { return }
                    for step in version..<HistorySchema.currentVersion {
                        for statement in HistorySchema.migrations[step] { try c.execute(statement) }
                    }
                    let upsert = "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
                    try c.execute(upsert, ["application", .text(HistorySchema.application)])
                    try c.execute(upsert, ["schema_version", .text(String(HistorySchema.currentVersion))])
                }
                return
            } catch let error as SQLError where error.kind == .busy && attempt < options.retries {
                attempt += 1
            }
        }
    }

    /// A read-only look before anything is written (SQLite's WAL switch rewrites the header):
    /// a database with other tables, another application's `meta`, or a newer schema is not touched.
    private func refuseForeign(_ c: any SQLConnection) throws {
        if c.dialect == .sqlite {
            // A damaged file is found by reading it, before the WAL switch or a migration writes to it.
            let check = try c.query("PRAGMA quick_check(1)", [])
            if let verdict = check.first?.first?.string, verdict != "ok" {
                throw HistoryError(.corrupt, "\(location) is a damaged SQLite database (quick_check: \(TerminalText.sanitize(String(verdict.prefix(120))))); move it away or pass --history-db")
            }
        }
        let tables = try c.tableNames()
        guard !tables.isEmpty else { return }
        guard tables.contains("meta") else { throw foreign(tables) }
        // Read exactly as `migrate` reads it, so that what passes here is what the migration sees.
        let meta = try Self.meta(c)
        guard meta["application"] == HistorySchema.application else { throw foreign(tables) }
        if let version = Int(meta["schema_version"] ?? ""), version > HistorySchema.currentVersion { throw newerSchema(version) }
    }

    /// The `meta` table as `key → value` (the first row of a key wins): the one reading that both the
    /// pre-write check and the migration decide on.
    private static func meta(_ c: any SQLConnection) throws -> [String: String] {
        Dictionary(try c.query("SELECT key, value FROM meta", []).compactMap { r -> (String, String)? in
            guard r.count >= 2, let k = r[0].string, let v = r[1].string else { return nil }
            return (k, v)
        }, uniquingKeysWith: { a, _ in a })
    }

    /// Why a password file (`XCFLEET_HISTORY_PASSFILE`, `PGPASSFILE`) may not be used, nil when
    /// it may: like libpq, it must be a regular file that only its owner can read or write (0600),
    /// and it must be the user's own.
    public static func passfileProblem(_ path: String, variable: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return "\(variable) \(path): \(String(cString: strerror(errno))) (name an existing password file, host:port:db:user:password lines, mode 0600)" }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return "\(variable) \(path) is not a regular file (name a password file, host:port:db:user:password lines, mode 0600)" }
        if st.st_uid != geteuid() { return "\(variable) \(path) belongs to uid \(st.st_uid), not to you (uid \(geteuid())); use a password file of your own" }
        if st.st_mode & 0o077 != 0 {
            return "\(variable) \(path) can be read or written by others (mode \(String(st.st_mode & 0o777, radix: 8))); chmod 600 \(path)"
        }
        return nil
    }

    /// Why the SQLite history at `path` (and its `-wal`, `-shm`, `-journal` files) may not be used,
    /// nil when it may: it must be a regular file, not a link, owned by this user and not writable
    /// by others; its folder must not let others replace it (writable by others without the
    /// sticky bit, or owned by another user than this one or root). A missing file is fine (it is
    /// created); its folder is checked all the same.
    static func sqliteFileProblem(_ path: String) -> String? {
        let me = geteuid()
        var st = stat()
        let shown = TerminalText.sanitize(path)
        for file in [path, path + "-wal", path + "-shm", path + "-journal"] {
            guard lstat(file, &st) == 0 else {
                if errno == ENOENT { continue }
                return "\(TerminalText.sanitize(file)): \(String(cString: strerror(errno))); pass --history-db with a file you can read and write"
            }
            let name = TerminalText.sanitize(file)
            switch st.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFLNK: return "\(name) is a symbolic link; xcfleet uses only a history file of its own, not a link — remove the link, or pass --history-db with the real file"
            default: return "\(name) is not a regular file; move it away or pass --history-db FILE"
            }
            if st.st_uid != me { return "\(name) belongs to uid \(st.st_uid), not to you (uid \(me)), so its rows could be anyone's; move it away (or chown it) or pass --history-db with a file of your own" }
            if st.st_mode & 0o002 != 0 { return "\(name) can be written by every user (mode \(String(st.st_mode & 0o777, radix: 8))), so its rows could be anyone's; chmod o-w \(name), or move it away" }
        }
        let dir = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        if stat(dir, &st) == 0 {
            if st.st_mode & 0o002 != 0 && st.st_mode & UInt32(S_ISVTX) == 0 {
                return "the folder of \(shown) can be written by every user (mode \(String(st.st_mode & 0o777, radix: 8)), no sticky bit), so anyone could replace the history; chmod o-w \(TerminalText.sanitize(dir)), or pass --history-db with a file in a folder of your own"
            }
            if st.st_uid != me && st.st_uid != 0 && st.st_mode & 0o022 != 0 {
                return "the folder of \(shown) belongs to uid \(st.st_uid) and others can write to it; pass --history-db with a file in a folder of your own"
            }
        }
        return nil
    }

    private func newerSchema(_ version: Int) -> HistoryError {
        HistoryError(.newerSchema, "\(location) has history schema version \(version), newer than this xcfleet understands (\(HistorySchema.currentVersion)); upgrade xcfleet or use another database")
    }

    private func foreign(_ tables: [String]) -> HistoryError {
        HistoryError(.foreign, "\(location) is not an xcfleet history database (it has other tables: \(tables.sorted().prefix(3).joined(separator: ", "))); move it away or pass another --history-db")
    }
}
