#!/usr/bin/env python3
"""A backend integrating with iap-pipeline in Python: the whole integration is three topics.

1. When the customer starts a purchase, publish the order (iap.order.v1 on iap.orders, key:
   appAccountToken) and hand the appAccountToken to the app, which passes it to StoreKit.
2. When the app reports the purchase, publish it (iap.purchase.v1 on iap.purchases, key:
   userId): the StoreKit 2 jwsRepresentation, as it came.
3. Read iap.entitlements (iap.entitlement.v1, key: userId) in your own consumer group and
   apply each eventId once: delivery is at-least-once, and a change delivered again carries
   the same eventId.

Against `iap-dev dev up --json`, whose App Store simulator stands in for the device here:

    python3 examples/python/backend.py --brokers 127.0.0.1:PORT --simulator http://127.0.0.1:PORT \
        --bundle-id com.example.game

It prints the entitlement as JSON on stdout and exits 0, or exits 1 if none came in time.
The event shapes: docs/events.md; their JSON Schemas: docs/schemas/<topic>.schema.json.
"""

import argparse
import json
import secrets
import sys
import time
import urllib.request
import uuid

from confluent_kafka import Consumer, KafkaException, Producer


def publish(producer, topic, key, event):
    """Publishes one event and waits for the broker's acknowledgement. The W3C traceparent
    header starts the record's trace (your tracer's current span belongs there): the pipeline
    carries it through every stage to the entitlement, whose record has it too (docs/events.md)."""
    failures = []
    traceparent = f"00-{secrets.token_hex(16)}-{secrets.token_hex(8)}-01"
    producer.produce(topic, key=key, value=json.dumps(event).encode(), headers=[("traceparent", traceparent)],
                     on_delivery=lambda error, _: failures.append(error) if error else None)
    producer.flush(30)
    if failures:
        raise KafkaException(failures[0])


def buy_on_device(simulator, bundle_id, product_id, app_account_token):
    """What the app does: buy with StoreKit, passing the order's appAccountToken. Here the App
    Store simulator of `iap-dev dev up` sells and signs the transaction."""
    request = urllib.request.Request(
        simulator + "/sim/v1/purchases", method="POST", headers={"Content-Type": "application/json"},
        data=json.dumps({"bundleId": bundle_id, "productId": product_id, "type": "Consumable",
                         "appAccountToken": app_account_token}).encode())
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def await_entitlement(consumer, user_id, transaction_id, timeout):
    """Reads iap.entitlements until the change for this transaction arrives. A real backend
    applies every change for its users, keyed on eventId, and commits after applying."""
    applied = set()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        message = consumer.poll(1.0)
        if message is None:
            continue
        if message.error():
            raise KafkaException(message.error())
        event = json.loads(message.value())
        if event["eventId"] in applied:
            continue  # the same change delivered again
        applied.add(event["eventId"])
        if event["userId"] == user_id and event["transactionId"] == transaction_id:
            return event
    return None


def main():
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--brokers", required=True, help="Kafka bootstrap servers")
    arguments.add_argument("--simulator", required=True, help="the App Store simulator's URL (`iap-dev dev up`)")
    arguments.add_argument("--bundle-id", default="com.example.game")
    arguments.add_argument("--product-id", default="com.example.game.gems100")
    arguments.add_argument("--timeout", type=float, default=120, help="seconds to wait for the entitlement")
    options = arguments.parse_args()

    user_id = "python-user-" + uuid.uuid4().hex[:8]
    order_id = "python-order-" + uuid.uuid4().hex[:8]
    app_account_token = str(uuid.uuid4())

    consumer = Consumer({"bootstrap.servers": options.brokers, "group.id": "python-backend-" + user_id,
                         "auto.offset.reset": "earliest"})
    consumer.subscribe(["iap.entitlements"])
    producer = Producer({"bootstrap.servers": options.brokers, "enable.idempotence": True})
    try:
        publish(producer, "iap.orders", app_account_token, {
            "schema": "iap.order.v1", "orderId": order_id, "userId": user_id,
            "appAccountToken": app_account_token, "productId": options.product_id,
            "quantity": 1, "bundleId": options.bundle_id})

        purchase = buy_on_device(options.simulator, options.bundle_id, options.product_id, app_account_token)

        publish(producer, "iap.purchases", user_id, {
            "schema": "iap.purchase.v1", "eventId": str(uuid.uuid4()), "bundleId": options.bundle_id,
            "userId": user_id, "orderId": order_id, "appAccountToken": app_account_token,
            "source": "storekit2", "signedTransaction": purchase["signedTransaction"]})

        entitlement = await_entitlement(consumer, user_id, purchase["transactionId"], options.timeout)
    finally:
        consumer.close()
    if entitlement is None:
        print(f"no entitlement for transaction {purchase['transactionId']} within {options.timeout:.0f} s",
              file=sys.stderr)
        return 1
    print(json.dumps(entitlement, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
