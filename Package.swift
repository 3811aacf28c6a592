// swift-tools-version:6.0
// xcfleet — test orchestrator for fleets of cloud Macs, hosted on Linux.
// Language mode 6 (complete concurrency checking) applies to every target.
import PackageDescription

let package = Package(
    name: "xcfleet",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "xcfleet", targets: ["xcfleet"]),
        .library(name: "XCFleetKit", targets: ["XCFleetKit"]),
        .library(name: "CacheContract", targets: ["CacheContract"]),
    ],
    targets: [
        // libssh2 1.10 (Debian libssh2-1-dev) through a system library target.
        .systemLibrary(
            name: "CLibSSH2",
            pkgConfig: "libssh2",
            providers: [.apt(["libssh2-1-dev"]), .brew(["libssh2"])]
        ),
        .target(name: "SSHClient", dependencies: ["CLibSSH2", "XCFleetBasics"]),
        // The run history (Sources/XCFleetKit/History): SQLite by default, PostgreSQL for teams.
        .systemLibrary(
            name: "CSQLite3",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"]), .brew(["libpq"])]
        ),
        // The seeds' core cache logic; Foundation only. Pushed to hosts as-is.
        .target(name: "CacheContract"),
        // The layers, each knowing only those above it (docs/architecture.md):
        // basics (Foundation only) → model (values) → core (pure decisions) → host scripts → kit (I/O).
        .target(name: "XCFleetBasics"),
        .target(name: "XCFleetModel", dependencies: ["XCFleetBasics"]),
        .target(name: "XCFleetCore", dependencies: ["XCFleetBasics", "XCFleetModel"]),
        // Its scripts are real files in Scripts/ (linted by HostScriptsTests), compiled in through the
        // generated HostScriptSources*.swift.
        .target(name: "XCFleetHostScripts", dependencies: ["XCFleetBasics", "XCFleetModel", "XCFleetCore"], exclude: ["Scripts"]),
        .target(name: "XCFleetKit", dependencies: ["XCFleetBasics", "XCFleetModel", "XCFleetCore", "XCFleetHostScripts",
                                                   "SSHClient", "CSQLite3", "CLibPQ"]),
        .executableTarget(name: "xcfleet", dependencies: ["XCFleetKit"]),

        // The very files that are pushed to a Mac, compiled and run here: the contract tests, and
        // xcfleet's own CacheContract plugged in through its adapter, as a team's code is.
        .testTarget(
            name: "CacheContractTests",
            dependencies: ["CacheContract"],
            path: "Templates",
            sources: ["cache-contract", "adapters/cache-contract", "contract-kit"]
        ),
        // Tests in layers (docs/architecture.md): one support library (seeded data, paths, the
        // binary locator, fake toolchains, sshd test hosts); pure-core tests that run in seconds;
        // kit tests (local processes, files, databases); integration tests (sshd hosts, network
        // namespaces, the real binary); the SSH client on its own.
        .target(name: "XCFleetTestSupport", dependencies: ["XCFleetKit", "SSHClient"], path: "Tests/XCFleetTestSupport"),
        .testTarget(name: "XCFleetCoreTests", dependencies: ["XCFleetBasics", "XCFleetModel", "XCFleetCore", "XCFleetTestSupport"]),
        .testTarget(name: "XCFleetKitTests", dependencies: ["XCFleetKit", "CacheContract", "XCFleetTestSupport"]),
        .testTarget(name: "XCFleetIntegrationTests", dependencies: ["XCFleetKit", "SSHClient", "XCFleetTestSupport"]),
        .testTarget(name: "SSHClientTests", dependencies: ["SSHClient", "XCFleetTestSupport"]),

        // Benchmarks (release builds print figures side by side with a reference tool).
        .executableTarget(name: "bench-parser", dependencies: ["XCFleetKit"], path: "bench/parser"),
        .executableTarget(name: "bench-ssh", dependencies: ["XCFleetKit", "SSHClient"], path: "bench/ssh"),
        .executableTarget(name: "bench-push", dependencies: ["XCFleetKit", "XCFleetHostScripts"], path: "bench/push", exclude: ["run.sh"]),
        .executableTarget(name: "bench-schedule", dependencies: ["XCFleetKit"], path: "bench/schedule"),
        .executableTarget(name: "bench-history", dependencies: ["XCFleetKit"], path: "bench/history", exclude: ["run.sh"]),
        .executableTarget(name: "bench-report", dependencies: ["XCFleetKit"], path: "bench/report", exclude: ["run.sh"]),
        .executableTarget(name: "bench-scale", dependencies: ["XCFleetKit"], path: "bench/scale", exclude: ["run.sh"]),
    ]
)
