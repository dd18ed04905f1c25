package io.cqlrows.cli;

/**
 * How many terminal columns text takes, as terminals draw it (the rules of POSIX {@code wcwidth} as
 * terminals implement them for Unicode 15): two for the East Asian Wide and Fullwidth characters
 * (CJK, Hangul, kana, fullwidth forms) and for emoji drawn as pictures, none for combining marks,
 * format characters such as the zero-width joiner and variation selectors, and Hangul medial and
 * final jamo, one for everything else. A sequence of emoji joined by zero-width joiners counts as
 * the sum of its emoji, as terminals without grapheme clustering draw it. Controls are escaped
 * before text is measured ({@link TerminalText}), so they are not counted here. Stateless.
 */
final class DisplayWidth {
  private DisplayWidth() {}

  /**
   * Ranges of code points two columns wide, sorted, as pairs of first and last: East Asian Width W
   * and F, and the emoji with a default emoji presentation.
   */
  private static final int[] WIDE = {
    0x1100, 0x115F, 0x231A, 0x231B, 0x2329, 0x232A, 0x23E9, 0x23EC, 0x23F0, 0x23F0, 0x23F3, 0x23F3,
    0x25FD, 0x25FE, 0x2614, 0x2615, 0x2648, 0x2653, 0x267F, 0x267F, 0x2693, 0x2693, 0x26A1, 0x26A1,
    0x26AA, 0x26AB, 0x26BD, 0x26BE, 0x26C4, 0x26C5, 0x26CE, 0x26CE, 0x26D4, 0x26D4, 0x26EA, 0x26EA,
    0x26F2, 0x26F3, 0x26F5, 0x26F5, 0x26FA, 0x26FA, 0x26FD, 0x26FD, 0x2705, 0x2705, 0x270A, 0x270B,
    0x2728, 0x2728, 0x274C, 0x274C, 0x274E, 0x274E, 0x2753, 0x2755, 0x2757, 0x2757, 0x2795, 0x2797,
    0x27B0, 0x27B0, 0x27BF, 0x27BF, 0x2B1B, 0x2B1C, 0x2B50, 0x2B50, 0x2B55, 0x2B55, 0x2E80, 0x303E,
    0x3041, 0x33FF, 0x3400, 0x4DBF, 0x4E00, 0x9FFF, 0xA000, 0xA4CF, 0xA960, 0xA97F, 0xAC00, 0xD7A3,
    0xF900, 0xFAFF, 0xFE10, 0xFE19, 0xFE30, 0xFE6F, 0xFF00, 0xFF60, 0xFFE0, 0xFFE6, 0x16FE0,
    0x16FE4, 0x17000, 0x18CFF, 0x1AFF0, 0x1B2FF, 0x1F004, 0x1F004, 0x1F0CF, 0x1F0CF, 0x1F18E,
    0x1F18E, 0x1F191, 0x1F19A, 0x1F200, 0x1F202, 0x1F210, 0x1F23B, 0x1F240, 0x1F248, 0x1F250,
    0x1F251, 0x1F260, 0x1F265, 0x1F300, 0x1F320, 0x1F32D, 0x1F335, 0x1F337, 0x1F37C, 0x1F37E,
    0x1F393, 0x1F3A0, 0x1F3CA, 0x1F3CF, 0x1F3D3, 0x1F3E0, 0x1F3F0, 0x1F3F4, 0x1F3F4, 0x1F3F8,
    0x1F43E, 0x1F440, 0x1F440, 0x1F442, 0x1F4FC, 0x1F4FF, 0x1F53D, 0x1F54B, 0x1F54E, 0x1F550,
    0x1F567, 0x1F57A, 0x1F57A, 0x1F595, 0x1F596, 0x1F5A4, 0x1F5A4, 0x1F5FB, 0x1F64F, 0x1F680,
    0x1F6C5, 0x1F6CC, 0x1F6CC, 0x1F6D0, 0x1F6D2, 0x1F6D5, 0x1F6D7, 0x1F6DC, 0x1F6DF, 0x1F6EB,
    0x1F6EC, 0x1F6F4, 0x1F6FC, 0x1F7E0, 0x1F7EB, 0x1F7F0, 0x1F7F0, 0x1F90C, 0x1F93A, 0x1F93C,
    0x1F945, 0x1F947, 0x1F9FF, 0x1FA70, 0x1FAFF, 0x20000, 0x2FFFD, 0x30000, 0x3FFFD
  };

  /** The columns {@code s} takes. */
  static int of(CharSequence s) {
    if (s == null) {
      return 0;
    }
    int width = 0;
    for (int i = 0; i < s.length(); ) {
      int c = Character.codePointAt(s, i);
      width += of(c);
      i += Character.charCount(c);
    }
    return width;
  }

  /** The columns code point {@code c} takes: 0, 1 or 2. */
  static int of(int c) {
    if (c < 0x300) {
      return 1; // ASCII and Latin-1: the fast path
    }
    if (zero(c)) {
      return 0;
    }
    return wide(c) ? 2 : 1;
  }

  private static boolean zero(int c) {
    int type = Character.getType(c);
    return type == Character.NON_SPACING_MARK
        || type == Character.ENCLOSING_MARK
        || type == Character.FORMAT
        || (c >= 0x1160 && c <= 0x11FF); // Hangul medial vowels and final consonants
  }

  private static boolean wide(int c) {
    int lo = 0;
    int hi = WIDE.length / 2 - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (c < WIDE[2 * mid]) {
        hi = mid - 1;
      } else if (c > WIDE[2 * mid + 1]) {
        lo = mid + 1;
      } else {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code s} cut to at most {@code max} columns, its last column {@code …} when it was cut; a wide
   * character that would cross the limit is left out.
   */
  static String cut(String s, int max) {
    if (of(s) <= max) {
      return s;
    }
    int width = 0;
    int i = 0;
    while (i < s.length()) {
      int c = s.codePointAt(i);
      int w = of(c);
      if (width + w > max - 1) {
        break;
      }
      width += w;
      i += Character.charCount(c);
    }
    return s.substring(0, i) + "…";
  }
}
