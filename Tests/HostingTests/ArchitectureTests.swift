import Foundation
import Testing

/// `docs/architecture.md` is the module map newcomers read; this holds it to `Package.swift`,
/// `Package.swift` to the dependency rules the map states, and every target's dependencies in
/// `Package.swift` to the `import`s of its files.
@Suite(.timeLimit(.minutes(2))) struct ArchitectureTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The manifest, dumped once per test process for whichever test asks first.
    static let manifest = Task { try await PackageManifest.dump(packageAt: repository) }

    /// Every shipped target and the project targets it depends on: the graph docs/architecture.md
    /// draws. The test targets and `TestSupport` (under `Tests/`, in no product) are left out.
    static func packageGraph() async throws -> [String: Set<String>] {
        let shipped = try await manifest.value.targets.filter {
            !$0.sourcePath.hasPrefix("Tests/") && $0.kind != "test"
        }
        return Dictionary(uniqueKeysWithValues: shipped.map { ($0.name, $0.projectDependencies) })
    }

    /// The table between the `modules:begin` and `modules:end` markers: `| Module | Depends on |`.
    static func documentedGraph() throws -> [String: Set<String>] {
        let map = try String(contentsOf: repository.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let begin = try #require(map.range(of: "<!-- modules:begin -->"))
        let end = try #require(map.range(of: "<!-- modules:end -->"))
        var graph: [String: Set<String>] = [:]
        for line in map[begin.upperBound..<end.lowerBound].split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let names = { (cell: String) in
                Set(
                    cell.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }
                        .filter { !$0.isEmpty && $0 != "–" })
            }
            graph[names(cells[0]).first ?? ""] = names(cells[1])
        }
        return graph
    }

    @Test func theMapMatchesThePackage() async throws {
        let package = try await Self.packageGraph()
        let documented = try Self.documentedGraph()
        #expect(!package.isEmpty)
        for name in Set(package.keys).union(documented.keys).sorted() {
            #expect(
                package[name] == documented[name],
                "\(name): Package.swift says \(package[name]?.sorted() ?? []), docs/architecture.md says \(documented[name]?.sorted() ?? [])"
            )
        }
    }

    /// Every target, test targets included, declares exactly what its files import: no module
    /// imported because another dependency happens to link it, no dependency left over.
    @Test func everyTargetDeclaresWhatItImportsAndImportsWhatItDeclares() async throws {
        let targets = try await Self.manifest.value.targets.filter { $0.kind != "system" }
        #expect(targets.count > 20)
        for target in targets {
            let files = ImportGuard.swiftFiles(under: Self.repository.appendingPathComponent(target.sourcePath))
            #expect(!files.isEmpty, "\(target.name): no Swift file under \(target.sourcePath)")
            var imports: Set<String> = []
            for file in files {
                imports.formUnion(ImportGuard.importedModules(in: try String(contentsOf: file, encoding: .utf8)))
            }
            let findings = ImportGuard.findings(for: target, imports: imports).subtracting(ImportGuard.tolerated)
            for finding in findings.sorted(by: { "\($0)" < "\($1)" }) { Issue.record("\(finding)") }
        }
    }

    /// The guard reads every form of `import` and nothing that is not one.
    @Test func theGuardReadsEveryFormOfImport() {
        let source = #"""
            // import InALineComment
            /*
             import InABlockComment
             */
            import Foundation
            public import Kafka
            internal import CRdKafka
            @testable import Pipeline
            @_exported import Traces
            @preconcurrency @_spi(CMS) import X509
            import struct Redis.RedisClient
            #if canImport(Glibc)
            import Glibc
            #elseif canImport(Darwin)
            import Darwin
            #endif
            let script = """
                import InAString
                """
            func important() {}
            """#
        #expect(
            ImportGuard.importedModules(in: source) == [
                "Foundation", "Kafka", "CRdKafka", "Pipeline", "Traces", "X509", "Redis", "Glibc", "Darwin",
            ])
    }

    /// The guard can fail: a target importing what it does not declare, and declaring a target and a
    /// product it never imports, gets all three findings; system modules and products' other
    /// modules are no findings.
    @Test func theGuardFindsAnUndeclaredImportAndUnusedDependencies() {
        let target = DeclaredTarget(
            name: "Fake", kind: "regular", path: nil, projectDependencies: ["Kafka", "Redis"],
            productDependencies: ["Logging", "Metrics", "Instrumentation"])
        let imports: Set = ["Foundation", "Glibc", "Kafka", "Pipeline", "Logging", "ServiceContextModule"]
        #expect(
            ImportGuard.findings(for: target, imports: imports) == [
                ImportFinding(target: "Fake", kind: .undeclaredImport, name: "Pipeline"),
                ImportFinding(target: "Fake", kind: .unusedDependency, name: "Redis"),
                ImportFinding(target: "Fake", kind: .unusedDependency, name: "Metrics"),
            ])
    }

    /// `dump-package`'s three kinds of dependency, conditions and a `path:` are read as declared.
    @Test func theManifestReadsEveryKindOfDependency() throws {
        let json = """
            {"targets": [{"name": "Fake", "type": "test", "path": "Tests/Elsewhere", "dependencies": [
                {"byName": ["Kafka", null]},
                {"target": ["Redis", {"platformNames": ["linux"]}]},
                {"product": ["NIOCore", "swift-nio", null, null]}
            ]}],
            "dependencies": [
                {"sourceControl": [{"identity": "swift-nio", "location": {"remote": [{"urlString": "u"}]}}]},
                {"fileSystem": [{"identity": "local-package", "path": "/p"}]}
            ]}
            """
        let manifest = try JSONDecoder().decode(PackageManifest.self, from: Data(json.utf8))
        #expect(
            manifest.targets == [
                DeclaredTarget(
                    name: "Fake", kind: "test", path: "Tests/Elsewhere", projectDependencies: ["Kafka", "Redis"],
                    productDependencies: ["NIOCore"], productPackages: ["swift-nio"])
            ])
        #expect(
            manifest.dependencies == [
                PackageDependency(identity: "swift-nio"), PackageDependency(identity: "local-package"),
            ])
        #expect(manifest.targets.first?.sourcePath == "Tests/Elsewhere")
    }

    /// The rules of docs/architecture.md: lower layers never import upper ones.
    @Test func lowerLayersDoNotDependOnUpperOnes() async throws {
        let package = try await Self.packageGraph()
        func reach(_ start: String) -> Set<String> {
            var seen: Set<String> = []
            var queue = [start]
            while let next = queue.popLast() {
                for dependency in package[next] ?? [] where seen.insert(dependency).inserted {
                    queue.append(dependency)
                }
            }
            return seen
        }
        let runtime: Set = [
            "Kafka", "Redis", "Pipeline", "WorkerCommon", "Workers", "Reconcile", "Gateway", "LocalStack",
            "LocalServices",
        ]
        #expect(reach("Purchases").isDisjoint(with: runtime), "the rules are plain code (D9)")
        #expect(
            reach("AppStore").isDisjoint(with: runtime.union(["Purchases", "Hosting"])),
            "AppStore speaks Apple's terms only")
        #expect(
            reach("Hosting").isDisjoint(with: runtime.union(["Purchases", "AppStore"])),
            "the host knows no Kafka, Redis or purchases")
        #expect(reach("Kafka").isDisjoint(with: ["Redis", "Pipeline", "Purchases", "AppStore"]))
        #expect(reach("Redis").isDisjoint(with: ["Kafka", "Pipeline", "Purchases", "AppStore"]))
        #expect(reach("Pipeline").isDisjoint(with: ["Purchases", "Workers", "Gateway"]), "the runtime runs any stage")
        #expect(
            package["Pipeline"]?.contains("AppStore") == false,
            "the runtime uses no Apple code, only the contracts' reason codes")
        #expect(
            reach("Contracts").isDisjoint(with: runtime.union(["Purchases", "Hosting", "Topology", "AppStore"])),
            "the contracts are data and their codec, over Apple's models, not its clients")
        #expect(reach("AppStoreModels").isSubset(of: ["Basics"]), "Apple's models are a leaf")
        #expect(
            reach("Gateway").isDisjoint(with: ["Pipeline", "WorkerCommon", "Workers", "Reconcile", "Redis"]),
            "the gateway links neither the runtime nor the stages")
        #expect(
            reach("WorkerCommon").isDisjoint(with: ["Workers", "Reconcile", "Gateway"]),
            "what the stages and reconcile share is beneath both")
        #expect(reach("Reconcile").isDisjoint(with: ["Workers", "Gateway"]), "reconcile links no stage")
        #expect(reach("Workers").isDisjoint(with: ["Reconcile", "Gateway"]), "the stages link no reconcile")
        #expect(
            reach("Catalog").isSubset(of: ["Basics", "Settings", "AppStoreModels"]),
            "the catalog of every setting is a leaf, so every main links it and none links another's code for it")
        #expect(
            reach("Topology").isDisjoint(with: runtime.union(["Purchases", "AppStore"])), "the pipeline file is data")
        #expect(reach("Settings").isSubset(of: ["Basics"]), "the settings layer is a leaf")
        let settingsLayer: Set = ["Basics", "Settings", "Catalog", "AppStoreModels"]
        #expect(
            reach("Topology").isSubset(of: settingsLayer),
            "the pipeline file needs only the settings layer and its keys")
        #expect(reach("Hosting").isSubset(of: settingsLayer), "the host builds on the settings layer and its keys only")
        #expect(
            reach("LocalServices").isDisjoint(
                with: ["Pipeline", "Workers", "Gateway", "LocalStack", "Hosting", "Topology", "Contracts", "Purchases"]
            ),
            "the stand-ins stand in for the adapters, nothing above them")
        // Nothing in production reaches LocalServices, LocalStack or AppStoreSimulator:
        // DependencyClosureTests.noProductionTargetReachesTheLocalStandIns, over the listed targets.
    }
}
