import Foundation
import Testing

/// `docs/architecture.md` is the module map newcomers read; this holds it to `Package.swift`,
/// and holds `Package.swift` to the dependency rules the map states.
@Suite(.timeLimit(.minutes(2))) struct ArchitectureTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Every non-test target and the project targets it depends on, read from `Package.swift`.
    static func packageGraph() throws -> [String: Set<String>] {
        let manifest = try String(contentsOf: repository.appendingPathComponent("Package.swift"), encoding: .utf8)
        var graph: [String: Set<String>] = [:]
        let declaration = try Regex(#"\.(target|executableTarget|systemLibrary)\(\s*name:\s*"([^"]+)""#)
        for match in manifest.matches(of: declaration) {
            let name = String(match.output[2].substring ?? "")
            // The declaration's own arguments: up to its closing parenthesis.
            let rest = manifest[match.range.upperBound...]
            var depth = 1
            var end = rest.startIndex
            while depth > 0, end < rest.endIndex {
                if rest[end] == "(" { depth += 1 } else if rest[end] == ")" { depth -= 1 }
                end = rest.index(after: end)
            }
            let body = String(rest[..<end])
            guard !body.contains("path: \"Tests/") else { continue }
            var dependencies: Set<String> = []
            if let open = body.range(of: "dependencies: [") {
                var depth = 1
                var index = open.upperBound
                while depth > 0, index < body.endIndex {
                    if body[index] == "[" { depth += 1 } else if body[index] == "]" { depth -= 1 }
                    index = body.index(after: index)
                }
                let list = body[open.upperBound..<body.index(before: index)].replacing(
                    try Regex(#"\.product\([^)]*\)"#), with: "")
                for quoted in list.matches(of: try Regex(#""([^"]+)""#)) {
                    dependencies.insert(String(quoted.output[1].substring ?? ""))
                }
            }
            graph[name] = dependencies
        }
        return graph
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

    @Test func theMapMatchesThePackage() throws {
        let package = try Self.packageGraph()
        let documented = try Self.documentedGraph()
        #expect(!package.isEmpty)
        for name in Set(package.keys).union(documented.keys).sorted() {
            #expect(
                package[name] == documented[name],
                "\(name): Package.swift says \(package[name]?.sorted() ?? []), docs/architecture.md says \(documented[name]?.sorted() ?? [])"
            )
        }
    }

    /// The rules of docs/architecture.md: lower layers never import upper ones.
    @Test func lowerLayersDoNotDependOnUpperOnes() throws {
        let package = try Self.packageGraph()
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
        let runtime: Set = ["Kafka", "Redis", "Pipeline", "Workers", "Gateway", "LocalStack"]
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
            reach("Contracts").isDisjoint(with: runtime.union(["Purchases", "Hosting", "Topology"])),
            "the contracts are data and their codec")
        #expect(
            reach("Gateway").isDisjoint(with: ["Pipeline", "Workers", "Redis"]),
            "the gateway links neither the runtime nor the stages")
        #expect(
            reach("Topology").isDisjoint(with: runtime.union(["Purchases", "AppStore"])), "the pipeline file is data")
    }
}
