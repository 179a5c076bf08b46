/** @partnerpay/adapters-pg (work in progress; see the open issues). */
export {}
