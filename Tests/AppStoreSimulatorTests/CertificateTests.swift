import AppStoreSimulator
import Foundation
import NIOHTTP1
import Testing
import X509

@Suite("Test CA and JWS format", .timeLimit(.minutes(2)))
struct CertificateTests {
    @Test("JWS header has alg ES256 and a 3-certificate x5c; chain and signature verify from the written root")
    func jwsVerifies() async throws {
        try await withSimulator { client in
            let purchase = try await client.purchase()
            let jws = try purchase.string("signedTransaction")
            let header = try #require(
                try JSONSerialization.jsonObject(with: decodeBase64URL(jws.split(separator: ".")[0])) as? [String: Any]
            )
            #expect(Set(header.keys) == ["alg", "x5c"])
            let payload = try await verifyJWS(jws, rootPEMPath: client.simulator.rootCertificatePath)
            #expect(payload["transactionId"] as? String == (try purchase.string("transactionId")))
        }
    }

    @Test("a JWS doesn't verify against another simulator's root")
    func foreignRootFails() async throws {
        let other = try AppStoreSimulatorServer(configuration: .init())
        try await withSimulator { client in
            let jws = try await client.purchase().string("signedTransaction")
            await #expect(throws: TestFailure.self) {
                _ = try await verifyJWS(jws, rootPEMPath: other.rootCertificatePath)
            }
        }
    }

    @Test("a short-lived leaf fails verification once expired")
    func shortLivedLeaf() async throws {
        try await withSimulator(.init(leafValidity: .seconds(60))) { client in
            let jws = try await client.purchase().string("signedTransaction")
            _ = try await verifyJWS(jws, rootPEMPath: client.simulator.rootCertificatePath)
            await #expect(throws: TestFailure.self) {
                _ = try await verifyJWS(
                    jws, rootPEMPath: client.simulator.rootCertificatePath, at: Date().addingTimeInterval(3600))
            }
        }
    }

    @Test("the chain carries Apple's marker OIDs")
    func markerOIDs() throws {
        let authority = try CertificateAuthority.generate(leafValidity: .seconds(3600))
        #expect(authority.leaf.extensions[oid: CertificateAuthority.leafMarkerOID] != nil)
        #expect(authority.intermediate.extensions[oid: CertificateAuthority.intermediateMarkerOID] != nil)
        #expect(authority.root.extensions[oid: CertificateAuthority.leafMarkerOID] == nil)
        #expect(authority.x5c.count == 3)
    }

    @Test("a state directory keeps the root across restarts")
    func stateDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sim-ca-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first = try CertificateAuthority.loadOrCreate(directory: directory, leafValidity: .seconds(3600))
        let second = try CertificateAuthority.loadOrCreate(directory: directory, leafValidity: .seconds(3600))
        #expect(first.root == second.root)
        #expect(first.leaf == second.leaf)
        let renewed = try CertificateAuthority.loadOrCreate(
            directory: directory, now: Date().addingTimeInterval(7200), leafValidity: .seconds(3600)
        )
        #expect(renewed.root == first.root)
        #expect(renewed.leaf != first.leaf)
    }
}
