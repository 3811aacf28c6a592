// swift-tools-version:6.0
// A small app package with its own cache types, run under xcfleet's cache contract
// (Plans/app-cache-contract.json) through one adapter file (Contract/AppCacheAdapter.swift).
import PackageDescription

let package = Package(
    name: "AppCache",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "AppCache", targets: ["AppCache"]),
    ],
    targets: [
        .target(name: "AppCache"),
    ]
)
