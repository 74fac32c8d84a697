/// A JSON event on one of the pipeline's topics, identified by its `schema` string.
///
/// Each conforming type stores `schema` (so it is written on encode) and names its expected
/// value in the static ``schema``; ``EventDecoder`` checks it before decoding the rest.
public protocol PipelineEvent: Codable, Sendable {
    /// The exact `schema` value this type reads and writes, e.g. `iap.purchase.v1`.
    static var schema: String { get }
}
