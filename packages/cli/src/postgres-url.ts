/** Whether a store or budget value names a PostgreSQL server rather than a directory (or `memory`). */
export const isPostgresUrl = (value: string): boolean => /^postgres(ql)?:/i.test(value);
