"""The documented shapes of the money trail's answers (DESIGN.md, provider SDK facts), one place for the tests."""

from __future__ import annotations

# A transactions answer as the provider documents it: money as {value, currencyCode},
# a transactionId padded with trailing spaces, nested orderItems, numbers a float would spoil.
TRANSACTIONS_ANSWER = """{
  "startDate": "2026-11-01", "endDate": "2026-11-02",
  "clients": [{"clientName": "acme", "transactions": [
    {"orderId": 6761537, "requestId": "req-1", "productId": 501, "orderNumber": "O-06761537",
     "orderTotal": {"value": 25.32, "currencyCode": "USD"},
     "orderTotalForSelectedProducts": {"value": 25.32, "currencyCode": "USD"},
     "orderDate": "2026-11-01T09:00:00.000", "transactionId": "T123456   ", "transactionType": "Order",
     "comment": "", "notes": null,
     "availableBalance": {"value": 1000.10, "currencyCode": "USD"},
     "transactionAmount": {"value": -25.32, "currencyCode": "USD"},
     "transactionDate": "2026-11-01T09:00:01.000",
     "orderItems": [{"productName": "Tea & Co £20", "brandName": "Tea & Co", "brandCurrencyCode": "GBP",
       "denomination": {"value": 20, "currencyCode": "GBP"}, "clientDiscountType": "Percentage",
       "clientDiscountValue": 0.0, "clientTransactionFeeType": "Fixed", "clientTransactionFeeValue": 0.0,
       "clientPrice": 20.0, "estimatedPrice": 25.32, "quantity": 1, "clientTotal": 25.32,
       "clientExchangeRate": {"fromCurrency": "GBP", "toCurrency": "USD", "exchangeRate": 1.265823},
       "futureField": "kept"}]},
    {"orderId": 6761538, "requestId": "req-2", "productId": 101, "orderNumber": "O-06761538",
     "orderTotal": {"value": 0.1, "currencyCode": "USD"},
     "orderTotalForSelectedProducts": {"value": 0.1, "currencyCode": "USD"},
     "orderDate": "2026-11-02T10:00:00.000", "transactionId": "T123457 ", "transactionType": "Order",
     "comment": "", "notes": "",
     "availableBalance": {"value": 1000.00, "currencyCode": "USD"},
     "transactionAmount": {"value": -0.1, "currencyCode": "USD"},
     "transactionDate": "2026-11-02T10:00:00.000", "orderItems": []}
  ]}]
}"""

RATES_ANSWER = '{"baseCurrencyCode": "USD", "rates": [{"currencyCode": "EUR", "value": 0.871483}]}'
