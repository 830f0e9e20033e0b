/**
 * A value loaded on first use and kept, unless loading failed (then the next use loads again).
 * For an adapter's own bot identity (Telegram getMe, Discord `GET /users/@me`): asked once,
 * retried after a failure, replaceable when the platform tells it another way (Discord READY).
 */
export class Lazy<T> {
  #value: Promise<T> | undefined;
  readonly #load: () => Promise<T>;

  /** @param known the value when already known (tests, or configured); `load` is then not called. */
  constructor(load: () => Promise<T>, known?: T) {
    this.#load = load;
    if (known !== undefined) this.#value = Promise.resolve(known);
  }

  /** The value; the first call (or the first after a failed load) calls `load`. @throws its error */
  get(): Promise<T> {
    if (this.#value) return this.#value;
    const loading: Promise<T> = this.#load().catch((err: unknown) => {
      if (this.#value === loading) this.#value = undefined; // a set() meanwhile stays
      throw err;
    });
    this.#value = loading;
    return loading;
  }

  /** Replace the value (no load happens after this). */
  set(value: T): void {
    this.#value = Promise.resolve(value);
  }
}
