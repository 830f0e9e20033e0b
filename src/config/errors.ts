/** A configuration problem; the message names the variable or key. */
export class ConfigError extends Error {
  constructor(
    message: string,
    /** The environment variable or config-file key at fault, e.g. `PORT` or `roles[0].access`. */
    readonly key: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}
