import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// deploy/kubernetes/examples/offer-signing: the apple overlay with components/offer-keys, as its
/// comments tell an operator to assemble it. The rendered iap-api starts with the Secret
/// iap-offer-keys mounted as the component mounts it (made as its `kubectl create secret` line
/// makes it) and signs an offer for compose's development key, which holds the `sign` scope.
extension DeploymentEndToEndTests {
    static let offerSigning = "deploy/kubernetes/examples/offer-signing"

    @Test func theOfferSigningExampleSignsThroughTheReadAPI() async throws {
        let rendered = try await DeploymentFiles.render(Self.offerSigning)
        try await Self.withDeployments(rendered, of: Self.offerSigning, label: "offer-signing") {
            stack, project, hosts in
            let api = project.processes.filter { $0.name == "iap-api" }
            #expect(api.count == 1)
            try await stack.start(api, hosts: hosts, aliases: project.aliases.filter { $0.value.process == "iap-api" })
            let address = try #require(stack.addresses["iap-api:8081"], "iap-api listens on 8081")
            var request = HTTPClientRequest(url: "http://\(address)/v1/apps/com.example.game/offers/signatures")
            request.method = .POST
            request.headers.add(name: "Authorization", value: "Bearer iapk_dev_compose_only")
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(
                ByteBuffer(string: #"{"kind": "promotional-jws", "productId": "vip_monthly", "offerId": "WINBACK"}"#))
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
            let body = String(buffer: try await response.body.collect(upTo: 1 << 16))
            #expect(response.status == .ok, "\(body)")
            let answer = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
            #expect(answer?["keyIdentifier"] as? String == "SIMOFFER1")
            #expect((answer?["signature"] as? String)?.split(separator: ".").count == 3)
        }
    }
}
