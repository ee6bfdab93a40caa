// Known vectors: sha256 of each text's UTF-8 bytes, computed by another
// implementation (Python's hashlib), so that a hash agreeing only with itself
// (text hashed as latin-1 or UTF-16, line endings rewritten) is caught.
/** Texts and the sha256 hex of their UTF-8 bytes. */
export const VECTORS: readonly { name: string; text: string; sha256: string }[] = [
  { name: 'ASCII', text: 'abc', sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad' },
  {
    name: 'accents',
    text: 'café naïve — déjà vu',
    sha256: '9fb3b10d47772b4151d823276f8d680e7afc5a2bb34d95172de624e0880575fd',
  },
  {
    name: 'emoji (surrogate pairs, a joiner)',
    text: '🙂 emoji 👩\u200d💻 and 𝄞',
    sha256: 'f4f8d52e6a903579e6180d8165c1e9a9c42591277d18eff736bd4e873d0b972a',
  },
  {
    name: 'CRLF',
    text: 'line one\r\nline two\r\n',
    sha256: '6612d9c94c2da8d2544e1188348fc7baf717ffff1bacde51929a166404a41ffc',
  },
  {
    name: 'mixed',
    text: 'mixed: é\r\n🙂\n',
    sha256: '00c0cce1d9c819e74438b8bd2836f0c3b65962e82e6756738410866346eafcf6',
  },
]
