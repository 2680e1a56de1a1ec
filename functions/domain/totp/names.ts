/**
 * Default TOTP device names. Like the reference core, a device created without a name is called
 * `TOTP Device <n>`, where n starts at the number of the user's verified devices and goes up
 * until the name is free.
 */
export const defaultTotpDeviceName = (n: number) => `TOTP Device ${n}`;

/**
 * Names every device of a batch that is created for one user id at once (all verified, e.g. an
 * import), so that nameless devices get distinct default names.
 *
 * @param devices the devices in input order; named ones keep their (already trimmed) name.
 * @param existingNames names the user id already has (empty for a new user).
 * @param existingVerified how many of those are verified (the counter's start).
 * @returns the devices with `deviceName` always set, in the same order.
 */
export function assignTotpDeviceNames<T extends { deviceName?: string | undefined }>(
  devices: readonly T[],
  existingNames: readonly string[] = [],
  existingVerified = 0,
): (T & { deviceName: string })[] {
  const taken = new Set(existingNames);
  for (const d of devices) if (d.deviceName !== undefined) taken.add(d.deviceName);
  let verified = existingVerified;
  return devices.map((device) => {
    if (device.deviceName !== undefined) {
      verified++;
      return { ...device, deviceName: device.deviceName };
    }
    let n = verified;
    while (taken.has(defaultTotpDeviceName(n))) n++;
    const deviceName = defaultTotpDeviceName(n);
    taken.add(deviceName);
    verified++;
    return { ...device, deviceName };
  });
}
