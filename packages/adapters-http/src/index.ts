/** @partnerpay/adapters-http (work in progress; see the open issues). */
export {}
