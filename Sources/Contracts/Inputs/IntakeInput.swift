/// What the intake stage reads: purchases from backends (`iap.purchases`) and notifications
/// from the gateway (`iap.notifications`).
public enum IntakeInput: StageInput, Hashable {
    case purchase(PurchaseEvent)
    case notification(NotificationEvent)

    public static let cases: [EventCase<Self>] = [
        EventCase(PurchaseEvent.self) { .purchase($0) },
        EventCase(NotificationEvent.self) { .notification($0) },
    ]
}
