public import AppStore
public import Contracts

extension ReasonCode {
    /// The contract code of an Apple call that failed for good: the one place where Apple's
    /// terms become the pipeline's.
    public init(_ terminal: TerminalReason.Code) {
        self =
            switch terminal {
            case .requestNotEncodable: .malformedEvent
            case .invalidSignature: .invalidSignature
            case .invalidCertificate: .invalidCertificate
            case .wrongBundle: .wrongBundle
            case .wrongEnvironment: .wrongEnvironment
            case .receiptInvalid: .receiptInvalid
            case .transactionNotFound: .transactionNotFound
            case .sandboxNotAllowed: .sandboxNotAllowed
            }
    }
}
