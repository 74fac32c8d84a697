import AsyncHTTPClient
import Foundation
import NIOCore

/// Reads a worker's `/metrics` text for the demo summary.
public enum OpsScrape {
    /// `iap_stage_messages_total{outcome=...}` values by outcome.
    public static func stageOutcomes(_ url: String) async -> [String: Int] {
        guard let text = await get(url) else { return [:] }
        var outcomes: [String: Int] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("iap_stage_messages_total{") {
            guard let range = line.range(of: "outcome=\""), let end = line[range.upperBound...].firstIndex(of: "\""),
                let value = line.split(separator: " ").last.flatMap({ Double($0) })
            else { continue }
            outcomes[String(line[range.upperBound..<end]), default: 0] += Int(value)
        }
        return outcomes
    }

    public static func get(_ url: String) async -> String? {
        guard let response = try? await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(3)),
            let body = try? await response.body.collect(upTo: 8 << 20)
        else { return nil }
        return String(buffer: body)
    }
}
