/**
 * The database types of the adapter contract. A channel factory is given the process's Db
 * (`ChannelFactoryContext.db`, src/channel/factory.ts); an adapter's own stores take it, or a
 * transaction of it, as a Queryable. The interfaces are the store's (src/store/db.ts), named
 * here so an adapter needs nothing of src/ beyond src/channel/ (docs/architecture-rules.md).
 */
export type { Db, Queryable } from '../store/db.ts';
