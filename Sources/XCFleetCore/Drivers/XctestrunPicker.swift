import Foundation
import XCFleetBasics

/// Chooses the `.xctestrun` file that `xcodebuild build-for-testing` wrote into
/// `<DerivedData>/Build/Products`, from a directory listing. Pure.
///
/// Xcode names it `<scheme>[_<test plan>]_<sdk><sdk version>[-<arch>…].xctestrun`, e.g.
/// `xcfleet-cache-contract-Package_macosx15.5-arm64.xctestrun` or
/// `App_UnitTests_iphonesimulator18.4-arm64-x86_64.xctestrun`. One products folder can hold
/// several (builds for other platforms, SDK versions or schemes). The choice:
/// 1. only files whose SDK fits the destination (`macosx` for macOS, `iphonesimulator` for the iOS
///    Simulator, …; any simulator SDK for a bare `id=` destination);
/// 2. among those, the ones of the first preferred scheme that has any (the scheme that was built,
///    else `<Package>-Package`, else the test target's name); otherwise all of step 1;
/// 3. the newest (the listing comes newest first: `ls -1t`); ties never arise from one listing.
/// None left: an error that names every candidate that was there.
public enum XctestrunPicker {
    /// The SDK names (file name part before the version) that fit `destination`.
    public static func sdks(for destination: XcodeDestination) -> [String] {
        switch destination {
        case .macOS: return ["macosx"]
        case .simulator(let platform, _, _), .simulatorID(let platform?, _):
            return simulatorSDKs[platform].map { [$0] } ?? []
        case .simulatorID(nil, _):
            return simulatorSDKs.values.sorted()
        }
    }

    package static let simulatorSDKs = ["iOS Simulator": "iphonesimulator", "tvOS Simulator": "appletvsimulator",
                                "watchOS Simulator": "watchsimulator", "visionOS Simulator": "xrsimulator"]

    /// One `.xctestrun` file name, split into its parts (nil when it does not have Xcode's form).
    public struct Name: Equatable, Sendable {
        public var file: String
        /// `<scheme>` or `<scheme>_<test plan>`.
        public var schemePart: String
        public var sdk: String
        /// What follows the SDK name: `18.4-arm64-x86_64`.
        public var versionAndArchs: String

        public init?(_ file: String) {
            guard file.hasSuffix(".xctestrun"), !file.contains("/") else { return nil }
            let stem = file.dropLast(".xctestrun".count)
            // The platform part starts at the last `_` followed by lowercase letters and a digit
            // (`_iphonesimulator18.4`); an arch such as `x86_64` has an `_` of its own.
            var cut: Substring.Index?
            var i = stem.endIndex
            while i > stem.startIndex {
                i = stem.index(before: i)
                guard stem[i] == "_" else { continue }
                let rest = stem[stem.index(after: i)...]
                let letters = rest.prefix { $0.isASCII && $0.isLowercase }
                if !letters.isEmpty, rest.dropFirst(letters.count).first?.isNumber == true { cut = i; break }
            }
            guard let underscore = cut else { return nil }
            let scheme = stem[..<underscore]
            let platform = stem[stem.index(after: underscore)...]
            let sdk = platform.prefix { $0.isASCII && $0.isLowercase }
            guard !scheme.isEmpty, !sdk.isEmpty else { return nil }
            self.file = file
            schemePart = String(scheme)
            self.sdk = String(sdk)
            versionAndArchs = String(platform.dropFirst(sdk.count))
        }

        package func belongs(to scheme: String) -> Bool { schemePart == scheme || schemePart.hasPrefix(scheme + "_") }
    }

    /// The chosen file name from `listing` (one name per line, newest first).
    public static func choose(listing: String, destination: XcodeDestination, preferredSchemes: [String],
                              productsPath: String) throws -> String {
        let entries = listing.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).map { $0.trimmingCharacters(in: .whitespaces) }
        let all = entries.filter { $0.hasSuffix(".xctestrun") }
        let wanted = sdks(for: destination)
        let fitting = all.compactMap(Name.init).filter { wanted.contains($0.sdk) }
        guard !fitting.isEmpty else {
            throw XctestrunError(productsPath: productsPath, sdks: wanted, candidates: all)
        }
        for scheme in preferredSchemes {
            if let newest = fitting.first(where: { $0.belongs(to: scheme) }) { return newest.file }
        }
        return fitting[0].file
    }
}

/// No `.xctestrun` in the products folder fits the destination.
public struct XctestrunError: Error, Equatable, Sendable, CustomStringConvertible {
    public var productsPath: String
    public var sdks: [String]
    public var candidates: [String]

    public var description: String {
        // Names come from the host: control characters never reach a terminal.
        let shown = candidates.prefix(10).map { String(String.UnicodeScalarView($0.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 })) }
        let found = candidates.isEmpty ? "none there" : "found only: " + shown.joined(separator: ", ") + (candidates.count > 10 ? ", …" : "")
        return "no .xctestrun for \(sdks.joined(separator: "/")) in \(productsPath) (\(found)); build-for-testing did not produce one for this destination"
    }
}

extension XctestrunError: UserFacingError {
    public var userMessage: String { description }
    public var exitCode: Int32 { UserFacingErrors.ExitCode.infrastructure }
}
