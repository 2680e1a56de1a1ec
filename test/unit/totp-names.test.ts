import { describe, expect, it } from 'vitest';
import { assignTotpDeviceNames, defaultTotpDeviceName } from '#functions/domain/totp/names.js';
import { listDevicesQuery } from '#functions/domain/totp/requests.js';
import { listDevices } from '#functions/domain/totp/service.js';
import { parseRequest } from '#functions/shared/request-schema.js';
import { memoryTotpStore } from '../helpers/memory-totp-store.js';

// The route's schema, read as the pipeline reads a query.
const parseListDevices = (query: unknown) => parseRequest(listDevicesQuery, query, 'query');

describe('assignTotpDeviceNames', () => {
  it('names nameless devices "TOTP Device <n>" counting verified devices, skipping names in use', () => {
    const named = assignTotpDeviceNames([
      { secretKey: 'a' },
      { secretKey: 'b', deviceName: 'TOTP Device 2' },
      { secretKey: 'c' },
      { secretKey: 'd' },
    ]);
    expect(named.map((d) => d.deviceName)).toEqual([
      'TOTP Device 0',
      'TOTP Device 2',
      'TOTP Device 3',
      'TOTP Device 4',
    ]);
    expect(named[0]?.secretKey).toBe('a');
  });

  it('starts after the existing verified devices', () => {
    const named = assignTotpDeviceNames([{}], ['TOTP Device 1'], 1);
    expect(named[0]?.deviceName).toBe('TOTP Device 2');
    expect(defaultTotpDeviceName(7)).toBe('TOTP Device 7');
  });
});

describe('TOTP device list', () => {
  it('validates the query', () => {
    expect(() => parseListDevices({})).toThrow("Field name 'userId' is missing in GET request");
    expect(() => parseListDevices({ userId: '' })).toThrow('userId cannot be empty');
    expect(parseListDevices({ userId: 'u' })).toEqual({ userId: 'u' });
  });

  it('returns OK with an empty list when there are no devices', async () => {
    const store = {
      ...memoryTotpStore().forApp('a'),
      openTotpDeviceSecret: async () => {
        throw new Error('listing never reads a secret');
      },
    };
    expect(await listDevices(store, { userId: 'u' })).toEqual({ status: 'OK', devices: [] });
  });
});
