import Foundation

/// Holds each target's declared dependencies to the `import`s of its files: a module imported but
/// not declared builds only because something else happens to link it, and a dependency declared
/// but never imported draws the module map wrong.
enum ImportGuard {
    /// Modules of the toolchain and the platform, which no manifest declares.
    static let systemModules: Set<String> = [
        "Android", "CoreFoundation", "Darwin", "Dispatch", "Distributed", "Foundation", "FoundationEssentials",
        "FoundationInternationalization", "FoundationNetworking", "FoundationXML", "Glibc", "Musl", "Observation",
        "RegexBuilder", "Swift", "Synchronization", "Testing", "WinSDK", "XCTest", "_Concurrency", "_StringProcessing",
        "os",
    ]

    /// Products whose modules are not just the one module named like the product, as their packages'
    /// manifests (`.build/checkouts`) declare them. Every other product this package uses provides
    /// exactly the module of its name (`Crypto`, `_CryptoExtras`, `NIOCore`, `ServiceLifecycle`, …).
    static let productModules: [String: Set<String>] = [
        "Instrumentation": ["Instrumentation", "ServiceContextModule"],  // swift-distributed-tracing
        "_NIOFileSystem": ["_NIOFileSystem", "NIOFileSystem"],  // swift-nio
    ]

    /// Findings accepted for now, each with its reason: those that only moving code between
    /// modules would fix. None: every finding so far was fixed in `Package.swift`.
    static let tolerated: Set<ImportFinding> = []

    static func modules(ofProduct product: String) -> Set<String> { productModules[product] ?? [product] }

    /// What `target` declares against what its files import (`imports`, as `importedModules`
    /// reads them): every undeclared import and every unused dependency.
    static func findings(for target: DeclaredTarget, imports: Set<String>) -> Set<ImportFinding> {
        let provided = target.productDependencies.reduce(into: Set<String>()) { $0.formUnion(modules(ofProduct: $1)) }
        var findings: Set<ImportFinding> = []
        let undeclared = imports.subtracting(systemModules).subtracting(target.projectDependencies)
            .subtracting(provided).subtracting([target.name])
        for module in undeclared {
            findings.insert(ImportFinding(target: target.name, kind: .undeclaredImport, name: module))
        }
        for dependency in target.projectDependencies where !imports.contains(dependency) {
            findings.insert(ImportFinding(target: target.name, kind: .unusedDependency, name: dependency))
        }
        for product in target.productDependencies where modules(ofProduct: product).isDisjoint(with: imports) {
            findings.insert(ImportFinding(target: target.name, kind: .unusedDependency, name: product))
        }
        return findings
    }

    /// Every `.swift` file under `directory`, however deep.
    static func swiftFiles(under directory: URL) -> [URL] {
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        return (files?.compactMap { $0 as? URL } ?? []).filter { $0.pathExtension == "swift" }
    }

    /// The modules a Swift source's `import` declarations name, in any form: `public`/`internal`/…
    /// `import X`, `@testable`/`@_exported`/`@preconcurrency`/`@_spi(…)` ones, `import struct X.Y`.
    /// Every branch of an `#if` counts, `canImport` ones included: the file imports the module on
    /// some platform, so the target must declare it (the platform modules such branches usually
    /// pick are `systemModules`). Lines in block comments and multi-line (raw) strings are not code.
    static func importedModules(in source: String) -> Set<String> {
        let declaration =
            #/
            (?: @\w+ (?: \( [^)]* \) )? \s+ )*  # attributes: @testable, @_exported, @_spi(…)
            (?: (?: public | package | internal | fileprivate | private ) \s+ )?
            import \s+
            (?: (?: typealias | struct | class | enum | protocol | let | var | func ) \s+ )?
            (\w+)  # the module; `import struct X.Y` names X
            /#
        var modules: Set<String> = []
        var closing: String?  // what ends the block comment or multi-line string the line is in
        for rawLine in source.split(separator: "\n") {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if let end = closing {
                if line.contains(end) { closing = nil }
                continue
            }
            let quotes = line.ranges(of: "\"\"\"")
            if line.hasPrefix("/*"), !line.contains("*/") {
                closing = "*/"
            } else if quotes.count % 2 == 1, let opening = quotes.last {
                // `#"""` ends only at `"""#`.
                let hashes = line[..<opening.lowerBound].reversed().prefix { $0 == "#" }.count
                closing = "\"\"\"" + String(repeating: "#", count: hashes)
            } else if let match = line.prefixMatch(of: declaration) {
                modules.insert(String(match.1))
            }
        }
        return modules
    }
}

/// One disagreement between a target's declared dependencies and its files' imports.
struct ImportFinding: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        /// A file imports a module that is neither a declared project dependency nor a module of a
        /// declared product.
        case undeclaredImport
        /// A declared project dependency or product none of whose modules any file imports.
        case unusedDependency
    }

    var target: String
    var kind: Kind
    /// The module imported, or the dependency (target or product) declared.
    var name: String

    var description: String {
        switch kind {
        case .undeclaredImport:
            "\(target) imports \(name), which its dependencies in Package.swift do not declare"
        case .unusedDependency:
            "\(target) declares the dependency \(name) in Package.swift, but none of its files imports it"
        }
    }
}
