// The README is read on npm, where a relative link goes nowhere (there is no
// repository to resolve it against) and files outside the tarball do not
// exist. So every link to our own files is absolute, to this version's
// tarball on a CDN that serves npm packages, and the file is in the
// tarball; a link to a heading names one that exists.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { root } from './packed.js';

const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const OWN = `https://cdn.jsdelivr.net/npm/blake3-kit@${version}/`;

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes. */
function anchors(markdown: string): Set<string> {
  const slugs = new Set<string>();
  for (const [, heading] of markdown.matchAll(/^#{1,6} +(.+)$/gm)) {
    slugs.add(
      heading!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    );
  }
  return slugs;
}

describe.runIf(inject('flavour') === 'simd')("the README's links", () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const links = [...readme.matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((match) => match[1]!);
  const packed = new Set(
    (
      JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' })) as {
        files: { path: string }[];
      }[]
    )[0]!.files.map((file) => file.path),
  );

  it('are absolute, or headings of the README itself', () => {
    expect(links.length).toBeGreaterThan(20);
    for (const link of links) expect(link, link).toMatch(/^(https:\/\/|#)/);
    for (const link of links.filter((link) => link.startsWith('#'))) expect(anchors(readme), link).toContain(link.slice(1));
  });

  it("reach files of this version's tarball, and headings that exist in them", () => {
    const own = links.filter((link) => link.startsWith('https://cdn.jsdelivr.net/npm/blake3-kit'));
    expect(own.length).toBeGreaterThan(15);
    for (const link of own) {
      expect(link, `${link} is not this version's (${version})`).toMatch(new RegExp(`^${OWN.replace(/[.]/g, '\\.')}`));
      const [path, anchor] = link.slice(OWN.length).split('#') as [string, string | undefined];
      expect(packed, `${path} is not in the tarball`).toContain(path);
      expect(existsSync(join(root, path)), path).toBe(true);
      if (anchor !== undefined) expect(anchors(readFileSync(join(root, path), 'utf8')), link).toContain(anchor);
    }
  });
});
