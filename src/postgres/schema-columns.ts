// What both schema files use: the board_window enum and timestamptz columns read as Dates.
import { pgEnum, timestamp } from 'drizzle-orm/pg-core';

export const boardWindow = pgEnum('board_window', ['SEASON', 'DAY', 'WEEK', 'MONTH', 'CUSTOM']);

/** A timestamptz column read as a Date. */
export const tstz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
