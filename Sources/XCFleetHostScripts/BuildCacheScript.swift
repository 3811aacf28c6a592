import Foundation
import XCFleetBasics
import XCFleetModel

/// The host side of the build cache: one POSIX sh script (plus perl for `flock`), the same on
/// Linux and macOS, run through the host's shell in the job directory. See docs/builds.md.
///
/// Layout under `<workRoot>/builds/`:
/// - `<key>/`: a finished build (the whole package tree with its scratch directory, e.g. `.build`
///   or DerivedData) and its marker `.xcfleet-build` (written last): `key=`, `toolchain=` (digest
///   of the toolchain identity), `product=` (SHA-256 over the test product's files), then the
///   `sha256  path` manifest of every source file (listed and hashed from the job directory;
///   used only when it hashes to `BuildKey.sourcesDigest`, the script's argument).
/// - `.stage/`: the one place builds are made (SwiftPM and llbuild record absolute paths, so an
///   incremental build only recompiles what changed when it runs at the same path as its base).
///   Renamed to `<key>/` when complete; a `.stage` left by a killed builder has no marker and is
///   wiped by the next builder, never used.
/// - `.lock`: every builder holds an exclusive `flock` on it (the kernel drops it when the builder
///   dies; works across xcfleet processes). Readers of a finished build need no lock.
/// - `.pins/<key>.<job>`: the job directory using a build; a pin whose job directory is gone is stale.
///
/// Trust: a finished build is used only when the SHA-256 of its test product, computed afresh from
/// the files on disk, equals the digest xcfleet itself recorded when it built that key on this host
/// (`Input.trusted`, from the run and the history; never read from the host). The marker alone is a
/// file anything running as the login user can rewrite. One exception: an entry that did not exist
/// when this script started and was finished by another builder while this one waited for the lock
/// (a concurrent xcfleet process) is used on its own marker. Bases of incremental builds must pass
/// the same check. SwiftPM entries are made read-only (`chmod -R a-w`) once finished.
///
/// Protocol lines on stdout (`XCFLEET-BUILD …`): `waiting`, `locked`, `untrusted WHY`,
/// `origin cached|cold|incremental BASE`, `product PATH`, `digest SHA256` (of the product used),
/// `evicted NAME KIB`. Exit 0: the product is ready; the command's own status on a build failure;
/// 97 when the cache cannot be trusted or used.
public enum BuildCacheScript {
    public struct Input: Equatable, Sendable {
        public var workRoot: String
        public var key: BuildKey
        /// `BuildKey.toolchainDigest` of the host's identity: bases of another toolchain are never used.
        public var toolchainDigest: String
        /// The test product, relative to the package root, a shell glob matching one path
        /// (`.build/debug/*PackageTests.xctest`; on Xcode hosts the products folder `DerivedData/Build/Products`).
        public var productGlob: String
        /// `BuildKey.sourceManifest` of the workspace. Only its digest is on the command line
        /// (`BuildKey.sourcesDigest`): the script lists and hashes the job directory's files and
        /// builds only when they hash to it, so the command's length does not grow with the files.
        public var manifest: [String]
        /// The job directory holding the pushed package.
        public var jobDirectory: String
        public var limits: CacheLimits
        /// The build command, run in the staging directory.
        public var command: [String]
        /// Product digests xcfleet recorded for builds it made on this host (`BuildKey.hex` → SHA-256):
        /// the only builds the script may use or start from.
        public var trusted: [String: String] = [:]
        /// Keys this run is building on this host right now (by other jobs): a build of one of them
        /// that another builder finishes while this script waits for the lock may be the base of an
        /// incremental build, held to its marker's product. Any other build that appears meanwhile is not.
        public var pending: [String] = []
        /// Make a finished build read-only (SwiftPM: the tests run the bundle from the job folder and
        /// write nothing into the build; Xcode's test-without-building writes into DerivedData).
        public var readOnly: Bool = false

        package init(workRoot: String, key: BuildKey, toolchainDigest: String, productGlob: String, manifest: [String], jobDirectory: String,
                     limits: CacheLimits, command: [String], trusted: [String: String] = [:], pending: [String] = [],
                     readOnly: Bool = false) {
            self.workRoot = workRoot
            self.key = key
            self.toolchainDigest = toolchainDigest
            self.productGlob = productGlob
            self.manifest = manifest
            self.jobDirectory = jobDirectory
            self.limits = limits
            self.command = command
            self.trusted = trusted
            self.pending = pending
            self.readOnly = readOnly
        }
    }

    /// Exit status when the cache itself is unusable (ownership, lock, copy).
    public static let unusableStatus: Int32 = 97

    public static func command(_ input: Input) -> ShellCommand {
        ShellCommand(["sh", "-c", script, "sh", input.workRoot, input.key.hex, input.toolchainDigest, input.productGlob,
                      BuildKey.sourcesDigest(input.manifest), steeringPaths, input.jobDirectory, String(input.limits.maxBytes),
                      String(input.limits.minFreeBytes), trustLines(input.trusted, pending: input.pending), input.readOnly ? "1" : "0"] + input.command)
    }

    /// The pushed files the manifest leaves out (`BuildKey.testSteeringFiles`), one per line.
    package static var steeringPaths: String { BuildKey.testSteeringFiles.sorted().joined(separator: "\n") }

    /// Most `KEY pending` lines one command carries (each about 72 bytes of the exec request).
    public static let pendingLimit = 16

    /// `KEY DIGEST` lines, sorted; only well-formed pairs. Then `KEY pending` for each pending key
    /// (at most `pendingLimit`), with a record or without: a pending key's build that appears while
    /// the script waits is new, so an older record of that key (another work root's, an evicted
    /// build's) does not describe it; it is held to its marker's product instead.
    package static func trustLines(_ trusted: [String: String], pending: [String] = []) -> String {
        let records = trusted.filter { Self.isDigest($0.key) && Self.isDigest($0.value) }.sorted { $0.key < $1.key }
            .map { "\($0.key) \($0.value)" }
        let waiting = Set(pending.filter { Self.isDigest($0) }).sorted().prefix(pendingLimit).map { "\($0) pending" }
        return (records + waiting).joined(separator: "\n")
    }

    /// 64 lower-case hex digits.
    package static func isDigest(_ s: String) -> Bool {
        s.utf8.count == 64 && s.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// Functions shared by the build, eviction and clean scripts.
    package static let common = WorkRootSafety.shellFunctions + HostScriptSource.buildCacheCommon
        + "xcf_evict_perl=" + ShellQuote.quote(HostScriptSource.evictPerl) + "\n\n"

    package static let script = common + HostScriptSource.buildCache

    /// Installs a build relayed from another host of the same class (`Scripts/build-relay.sh`):
    /// `source` holds the package's files and the fetched test product (its sources, listed and
    /// hashed there, must hash to the digest of `manifest`); it becomes `builds/<key>` only when the
    /// sources match `manifest` and the product's SHA-256 is `digest` (the record
    /// xcfleet made when it built the key on the other host). Exit 0 (`relay installed DIGEST` or
    /// `relay present`), 96 when refused (`relay refused WHY`), 97 when the cache is unusable.
    public static func relayCommand(workRoot: String, key: BuildKey, toolchainDigest: String, productGlob: String, manifest: [String],
                                    source: String, digest: String, readOnly: Bool) -> ShellCommand {
        ShellCommand(["sh", "-c", common + HostScriptSource.buildRelay, "sh", workRoot, key.hex, toolchainDigest, productGlob,
                      BuildKey.sourcesDigest(manifest), steeringPaths, source, digest, readOnly ? "1" : "0"])
    }

    /// Exit status of a relay the host refused (the files were not what xcfleet recorded).
    public static let relayRefusedStatus: Int32 = 96

    /// Lists a finished build's test product on its host, one `x PATH` or `- PATH` line per file
    /// (executable or not), paths relative to the build: what a relay fetches. SwiftPM resource
    /// bundles beside the product (`*.resources`) come with it: the tests read them at run time.
    /// A symbolic link is listed as `l PATH` (a relay carries regular files only, so it refuses
    /// such a product: a macOS framework's `Versions/Current`, for one).
    public static func productListingCommand(workRoot: String, key: BuildKey, productGlob: String) -> ShellCommand {
        let script = #"cd "$1/builds/$2" || exit 1; shift 2; for p in $1; do [ -e "$p" ] || exit 1; { find "$p" \( -type f -o -type l \); find "$(dirname "$p")" -maxdepth 1 -name '*.resources' -type d -exec find {} \( -type f -o -type l \) \;; } | while IFS= read -r f; do if [ -L "$f" ]; then echo "l $f"; elif [ -x "$f" ]; then echo "x $f"; else echo "- $f"; fi; done; done"#
        return ShellCommand(["sh", "-c", script, "sh", workRoot, key.hex, productGlob])
    }

    /// `xcfleet hosts clean`: under the build lock, removes every build and push-cache entry that
    /// no running job uses, and any leftover staging directory.
    public static func cleanCommand(workRoot: String) -> ShellCommand {
        ShellCommand(["sh", "-c", common + HostScriptSource.cacheClean, "sh", workRoot])
    }
}

