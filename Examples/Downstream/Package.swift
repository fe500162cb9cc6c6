// swift-tools-version:6.0
// A package that depends on this one as an application would: the one product, SwiftRTP, and nothing else.
// Build it: cd Examples/Downstream && swift build
import PackageDescription

let package = Package(
    name: "Downstream",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "swift-rtp", path: "../..")],
    targets: [.executableTarget(name: "Downstream", dependencies: [.product(name: "SwiftRTP", package: "swift-rtp")])]
)
