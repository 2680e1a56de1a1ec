import { beforeAll, describe, expect, it } from 'vitest';
import { LATENCY_METRIC, METRIC } from '#functions/shared/metric-names.js';
import { THRESHOLDS } from '../../lib/alarms.js';
import { resourcesOfType, type Synthesized, synth } from './synth.js';

/** The password-migration hook's alarm and dashboard widgets (docs/password-migration-hook.md "Operations"). */

let synthesized: Synthesized;

beforeAll(() => {
  synthesized = synth();
}, 300_000);

describe('password-migration hook monitoring', () => {
  it('alarms on the unavailable share of hook checks, notifying the alarm topic', () => {
    const alarms = resourcesOfType(synthesized.workersTemplate, 'AWS::CloudWatch::Alarm').filter(([id]) =>
      id.startsWith('PasswordHookUnavailableAlarm'),
    );
    expect(alarms).toHaveLength(1);
    const props = alarms[0]?.[1].Properties ?? {};
    expect(props.Threshold).toBe(THRESHOLDS.hookUnavailablePercent);
    expect(props.EvaluationPeriods).toBe(2);
    expect(props.ComparisonOperator).toBe('GreaterThanThreshold');
    expect(props.AlarmActions).toHaveLength(1);
    expect(props.OKActions).toHaveLength(1);
    const names = (props.Metrics as { MetricStat?: { Metric: { MetricName: string } } }[])
      .flatMap((m) => (m.MetricStat ? [m.MetricStat.Metric.MetricName] : []))
      .sort();
    expect(names).toEqual(
      [METRIC.passwordHookMatch, METRIC.passwordHookMismatch, METRIC.passwordHookUnavailable].sort(),
    );
    const expression = (props.Metrics as { Expression?: string }[]).find((m) => m.Expression)?.Expression;
    expect(expression).toContain('100 * down / (ok + no + down)');
  });

  it('shows hook outcomes and latency on the migration dashboard', () => {
    const dashboards = resourcesOfType(synthesized.workersTemplate, 'AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(dashboards[0]?.[1].Properties?.DashboardBody);
    for (const name of [
      ...Object.values(METRIC).filter((n) => n.startsWith('PasswordHook')),
      LATENCY_METRIC.passwordHookLatency,
    ]) {
      expect(body).toContain(name);
    }
    expect(body).toContain('Password-migration hook latency (ms)');
  });
});
