/// What the match stage reads: verified transactions (`iap.verified`) and orders
/// (`iap.orders`).
public enum MatchInput: StageInput, Hashable {
    case verified(VerifiedTransaction)
    case order(OrderEvent)

    public static let cases: [EventCase<Self>] = [
        EventCase(VerifiedTransaction.self) { .verified($0) },
        EventCase(OrderEvent.self) { .order($0) },
    ]
}
