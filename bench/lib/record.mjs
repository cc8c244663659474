// What every run writes down next to its numbers (machine, load, commit,
// build, command) and where its result files go: bench/results/<base>.<ext>,
// copied to latest-….<ext>.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { benchDir, buildStamp, repoDir } from './build.mjs';

export const resultsDir = join(benchDir, 'results');

function git(dir, ...args) {
  try {
    return execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '?';
  }
}

/** The short commit of checkout `dir`, and whether src/ or crate/ differ from it. */
export function gitCommit(dir = repoDir) {
  const dirty = git(dir, 'status', '--porcelain', '--', 'src', 'crate');
  return `${git(dir, 'rev-parse', '--short', 'HEAD')}${dirty ? ' (+ uncommitted changes in src/ or crate/)' : ''}`;
}

export function machineFacts() {
  return {
    cpu: os.cpus()[0]?.model.trim() ?? '?',
    cores: os.cpus().length,
    memGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.versions.node,
    loadavgAtStart: loadavg(),
  };
}

export const loadavg = () => os.loadavg().map((x) => +x.toFixed(2));

/** The command line as typed, for `script` (a path under bench/). */
export const commandLine = (script) => `node bench/${script}${process.argv.length > 2 ? ` ${process.argv.slice(2).join(' ')}` : ''}`;

/** Machine, versions and commit of an in-process script's run. */
export function runInfo(script) {
  return { date: new Date().toISOString(), command: commandLine(script), gitCommit: gitCommit(), build: buildStamp(), machine: machineFacts() };
}

/** The header lines of an in-process script's markdown. */
export function infoLines(info, extra = []) {
  const m = info.machine;
  info.buildAtEnd = buildStamp();
  const changed = info.buildAtEnd !== info.build ? ` **The build changed during the run (${info.build} → ${info.buildAtEnd}): the numbers may mix two builds.**` : '';
  return [
    `${info.date} · \`${info.command}\` · blake3-kit at ${info.gitCommit}, build ${info.build}.${changed}`,
    '',
    `Machine: ${m.cpu}, ${m.cores} cores, ${m.memGiB} GiB, ${m.os}; Node ${m.node}. ` +
      `Load average (1/5/15 min) ${m.loadavgAtStart.join(' ')} at the start, ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} at the end. ` +
      (m.cores <= 2 ? 'A shared 2-core machine: expect noise of 10-50% in single cells; the ratios come from the same run.' : ''),
    ...extra,
  ].join('\n');
}

/** 2026-11-21-08-40: the date part of result file names. */
export const fileStamp = (date = new Date()) => date.toISOString().slice(0, 16).replace(/[:T]/g, '-');

/** Writes bench/results/<base>.<ext> for each { ext: text } of `outputs`,
 * copies each to <latest>.<ext>, and returns a line naming them. */
export function writeResults(base, latest, outputs) {
  mkdirSync(resultsDir, { recursive: true });
  const exts = Object.keys(outputs);
  for (const ext of exts) {
    const file = join(resultsDir, `${base}.${ext}`);
    writeFileSync(file, outputs[ext]);
    copyFileSync(file, join(resultsDir, `${latest}.${ext}`));
  }
  return `bench/results/${base}.{${exts.join(',')}} (and ${latest}.*)`;
}

/** The result files of a bench/native script: native-<name>-<date>.{md,json}. */
export const writeNativeResults = (name, md, json) =>
  writeResults(`native-${name}-${fileStamp()}`, `latest-native-${name}`, { md, json: JSON.stringify(json, null, 1) });
