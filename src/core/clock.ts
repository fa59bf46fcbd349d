// Injectable time source, so TTL, expiry and sweeps can be tested without sleeping.

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
