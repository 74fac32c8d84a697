import Foundation
import Testing

/// What each module drags in, beyond the module map's own arrows: the leaves that every process
/// and tool reads (the settings layer, the pipeline file) stay off the event-loop stack, and the
/// local stand-ins (mock cluster, `redis-server` child) stay out of everything that is deployed.
/// Read from the same dumped manifest as ``ArchitectureTests``, and from the manifests of the
/// resolved packages (`.build/checkouts`) for what the products pull in turn.
@Suite(.timeLimit(.minutes(3))) struct DependencyClosureTests {
    /// What the deployed workers, gateway and reconcile run, the operator CLI `iap` the image
    /// ships beside them, and the libraries beneath them (`SupportTools` is what `iap support`
    /// runs against production). Listed rather than derived, so a new target is classified on
    /// purpose: ``everyShippedTargetIsClassified`` fails until it is.
    static let production: Set<String> = [
        "CRdKafka", "CHiredis", "COpenSSL", "Basics", "Processes", "Settings", "Kafka", "Traces", "Redis",
        "AppStoreModels", "AppStore", "Contracts", "Purchases", "Hosting", "Topology", "ProductCatalog", "Customers",
        "ReadAPI", "Pipeline", "WorkerCommon",
        "Workers",
        "Reconcile", "Gateway", "Catalog", "SupportTools", "iap", "iap-intake", "iap-verify", "iap-match",
        "iap-grant", "iap-state", "iap-confirm", "iap-reconcile", "iap-gateway", "iap-api",
    ]

    /// The stand-ins for what production talks to: librdkafka's mock cluster and the
    /// `redis-server` child, the embedded stack over them, and the App Store simulator.
    static let standIns: Set<String> = ["LocalServices", "LocalStack", "AppStoreSimulator"]

    /// What only development runs: the stand-ins, the fuzz checks, and `iap-dev`, the developer
    /// tools (`dev`, `demo`, `sim`, `soak`, `bench`) that run the stand-ins (decision D46).
    static let development: Set<String> = standIns.union(["FuzzChecks", "iap-dev"])

    /// The leaves whose closure must hold no server stack: the settings layer, the pipeline file,
    /// Apple's models and the contracts (event data and codec, over Apple's models rather than
    /// `AppStore`, whose clients link AsyncHTTPClient and NIO).
    /// And the catalog of every setting, which every `main` links (`SettingsCatalog.pipeline`),
    /// and the product catalog and the customer state, which the read API will link.
    static let lightLeaves = [
        "Settings", "Topology", "AppStoreModels", "Contracts", "Catalog", "ProductCatalog", "Customers",
    ]

    /// What each executable must not link: the gateway none of the stages' world, a stage neither
    /// reconcile nor the gateway, reconcile no stage. Linking the settings catalog brings none of it.
    static let excluded: [String: Set<String>] = [
        "iap-gateway": ["Pipeline", "Workers", "WorkerCommon", "Reconcile", "Purchases", "Redis", "AppStore"],
        "iap-intake": ["Reconcile", "Gateway"], "iap-verify": ["Reconcile", "Gateway"],
        "iap-match": ["Reconcile", "Gateway"], "iap-grant": ["Reconcile", "Gateway"],
        "iap-state": ["Reconcile", "Gateway"], "iap-confirm": ["Reconcile", "Gateway"],
        "iap-api": ["Workers", "Reconcile", "Gateway"],
        "iap-reconcile": ["Workers", "Gateway"],
    ]

    /// The event-loop stack and what is built on it, by product name.
    static func isServerStack(product: String) -> Bool {
        ["NIO", "_NIO", "Hummingbird"].contains { product.hasPrefix($0) }
            || ["AsyncHTTPClient", "Prometheus"].contains(product)
    }

    /// The same, by package identity (`swift-nio`, `swift-nio-ssl`, `hummingbird`, …).
    static func isServerStack(package identity: String) -> Bool {
        identity.hasPrefix("swift-nio") || identity.hasPrefix("hummingbird")
            || ["async-http-client", "swift-prometheus"].contains(identity)
    }

    /// The project targets `target` reaches, itself included.
    static func reach(_ target: String, in graph: [String: Set<String>]) -> Set<String> {
        var seen: Set = [target]
        var queue = [target]
        while let next = queue.popLast() {
            for dependency in graph[next] ?? [] where seen.insert(dependency).inserted { queue.append(dependency) }
        }
        return seen
    }

    /// Every package `roots` reach through the packages' own manifests. Package granularity is
    /// coarser than what links (a package's test-only dependencies count too), so the check errs
    /// on the strict side.
    static func packageClosure(
        of roots: Set<String>, dependencies: (String) async throws -> Set<String>
    ) async throws -> Set<String> {
        var seen = roots
        var queue = Array(roots)
        while let next = queue.popLast() {
            for dependency in try await dependencies(next) where seen.insert(dependency).inserted {
                queue.append(dependency)
            }
        }
        return seen
    }

    /// The resolved packages' sources: `checkouts` beside the build the tests run from (up from
    /// the test executable), else the package's own `.build`.
    static func checkouts() throws -> URL {
        let executable = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        var directory = executable.deletingLastPathComponent()
        for _ in 0..<6 {
            let candidate = directory.appendingPathComponent("checkouts")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        let fallback = ArchitectureTests.repository.appendingPathComponent(".build/checkouts")
        guard FileManager.default.fileExists(atPath: fallback.path) else {
            throw ManifestError("no checkouts directory near \(executable.path) nor at \(fallback.path)")
        }
        return fallback
    }

    @Test func everyShippedTargetIsClassified() async throws {
        let graph = try await ArchitectureTests.packageGraph()
        #expect(Self.production.isDisjoint(with: Self.development))
        #expect(
            Set(graph.keys) == Self.production.union(Self.development),
            "classify \(Set(graph.keys).symmetricDifference(Self.production.union(Self.development)).sorted())")
    }

    @Test func noProductionTargetReachesTheLocalStandIns() async throws {
        let graph = try await ArchitectureTests.packageGraph()
        for target in Self.production.sorted() {
            let reached = Self.reach(target, in: graph).intersection(Self.development)
            #expect(reached.isEmpty, "\(target) reaches \(reached.sorted())")
        }
    }

    /// The operator CLI ships in the production image (decision D46): it is classified as
    /// production and reaches none of the stand-ins, so a command that needs one belongs to
    /// `iap-dev`.
    @Test func theOperatorCLIReachesNoStandIn() async throws {
        let graph = try await ArchitectureTests.packageGraph()
        #expect(graph["iap"] != nil, "iap is no target of Package.swift, so nothing was checked")
        #expect(Self.production.contains("iap") && !Self.development.contains("iap"))
        let reached = Self.reach("iap", in: graph).intersection(Self.standIns)
        #expect(reached.isEmpty, "iap reaches \(reached.sorted()); move what needs them to iap-dev")
        #expect(!Self.reach("iap-dev", in: graph).isDisjoint(with: Self.standIns), "iap-dev runs the stand-ins")
    }

    @Test func eachExecutableLinksOnlyItsOwnWorld() async throws {
        let graph = try await ArchitectureTests.packageGraph()
        for (executable, excluded) in Self.excluded.sorted(by: { $0.key < $1.key }) {
            #expect(graph[executable] != nil, "\(executable) is no target of Package.swift, so nothing was checked")
            let reached = Self.reach(executable, in: graph).intersection(excluded)
            #expect(reached.isEmpty, "\(executable) reaches \(reached.sorted())")
        }
    }

    @Test func theLightLeavesLinkNoServerStack() async throws {
        let manifest = try await ArchitectureTests.manifest.value
        let graph = try await ArchitectureTests.packageGraph()
        let targets = Dictionary(uniqueKeysWithValues: manifest.targets.map { ($0.name, $0) })
        let checkouts = try Self.checkouts()
        let directories = try FileManager.default.contentsOfDirectory(atPath: checkouts.path)
        var dumped: [String: Set<String>] = [:]
        var walkedAPackage = false
        for leaf in Self.lightLeaves {
            #expect(targets[leaf] != nil, "\(leaf) is no target of Package.swift, so nothing was checked")
            let reached = Self.reach(leaf, in: graph)
            let products = reached.reduce(into: Set<String>()) { $0.formUnion(targets[$1]?.productDependencies ?? []) }
            let roots = reached.reduce(into: Set<String>()) { $0.formUnion(targets[$1]?.productPackages ?? []) }
            let packages = try await Self.packageClosure(of: Set(roots.map { $0.lowercased() })) { identity in
                if let known = dumped[identity] { return known }
                guard let directory = directories.first(where: { $0.lowercased() == identity }) else {
                    throw ManifestError("\(identity) is not in \(checkouts.path); build first")
                }
                let dependencies = try await PackageManifest.dump(
                    packageAt: checkouts.appendingPathComponent(directory)
                ).dependencies.map(\.identity)
                dumped[identity] = Set(dependencies)
                return Set(dependencies)
            }
            walkedAPackage = walkedAPackage || !roots.isEmpty
            #expect(products.filter(Self.isServerStack(product:)).isEmpty, "\(leaf) reaches \(products.sorted())")
            #expect(packages.filter(Self.isServerStack(package:)).isEmpty, "\(leaf) reaches \(packages.sorted())")
        }
        // A leaf may need no other package (`AppStoreModels`: Basics and Foundation), but if none
        // reached a product the manifest was misread and the walk above checked nothing.
        #expect(walkedAPackage, "no light leaf reaches a product, so no package closure was checked")
    }

    /// The package walk goes past the first level: a server stack behind a light package is found.
    @Test func theClosureFindsAServerStackBehindALightPackage() async throws {
        let manifests: [String: Set<String>] = ["light": ["middle"], "middle": ["swift-nio-ssl"], "swift-nio-ssl": []]
        let packages = try await Self.packageClosure(of: ["light"]) { manifests[$0] ?? [] }
        #expect(packages == ["light", "middle", "swift-nio-ssl"])
        #expect(packages.filter(Self.isServerStack(package:)) == ["swift-nio-ssl"])
        #expect(Self.isServerStack(product: "NIOCore") && Self.isServerStack(product: "HummingbirdTLS"))
        #expect(!Self.isServerStack(product: "Configuration") && !Self.isServerStack(package: "swift-system"))
    }
}
