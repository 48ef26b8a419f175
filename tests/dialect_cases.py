"""Answers in the real provider's dialect (DESIGN.md "What the real provider sends and enforces"), shared by the tests of issue 25."""

GUID = "3f2b8c1e-5d4a-4e0b-9c7d-1a2b3c4d5e6f"

# A transaction as the provider's SDK documentation shows it (money as objects, fields beyond the documented).
TRANSACTION = {
    "orderId": 11,
    "requestId": GUID,
    "productId": 501,
    "orderNumber": "O-06761537",
    "orderTotal": {"value": 50.63, "currencyCode": "USD"},
    "orderTotalForSelectedProducts": {"value": 50.63, "currencyCode": "USD"},
    "orderDate": "2024-05-15T04:29:00",
    "transactionId": "T123      ",
    "transactionType": "Order",
    "comment": None,
    "notes": None,
    "availableBalance": {"value": 99949.37, "currencyCode": "USD"},
    "transactionAmount": {"value": -50.63, "currencyCode": "USD"},
    "transactionDate": "2024-05-15T04:29:01",
    "brandWithDenominationCurrency": "Tea & Co GBP 20",
    "createdDate": "2024-05-15T04:29:00",
    "xeroCreditNoteNumber": None,
    "orderType": "Sandbox",
    "currencyCode": None,
    "orderItems": [
        {
            "productName": "Tea & Co £20",
            "brandName": "Tea & Co",
            "brandCurrencyCode": "GBP",
            "denomination": {"value": 20, "currencyCode": "GBP"},
            "clientDiscountType": "Percentage",
            "clientDiscountValue": 0,
            "clientTransactionFeeType": "Fixed",
            "clientTransactionFeeValue": 0,
            "clientPrice": {"value": 25.32, "currencyCode": "USD"},
            "estimatedPrice": {"value": 25.32, "currencyCode": "USD"},
            "quantity": 2,
            "clientTotal": 50.63,
            "clientExchangeRate": {"fromCurrency": "GBP", "toCurrency": "USD", "exchangeRate": 0},
        }
    ],
}
