/** @partnerpay/app: the composition root of the partnerpay service. */
export {}
