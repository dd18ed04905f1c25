package io.cqlrows.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.ColumnSpec;
import io.cqlrows.core.type.NativeType;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Tables line up in a terminal: CJK and emoji take two columns, combining marks none. */
class DisplayWidthTest {
  @Test
  void columnsAsTerminalsDrawThem() {
    assertEquals(3, DisplayWidth.of("abc"));
    assertEquals(6, DisplayWidth.of("日本語"));
    assertEquals(6, DisplayWidth.of("한국어"));
    assertEquals(4, DisplayWidth.of("かな"));
    assertEquals(4, DisplayWidth.of("ＡＢ"), "fullwidth forms");
    assertEquals(4, DisplayWidth.of("ｶﾀｶﾅ"), "halfwidth katakana");
    assertEquals(2, DisplayWidth.of("😀"));
    assertEquals(2, DisplayWidth.of("🚀"));
    assertEquals(1, DisplayWidth.of("é"));
    assertEquals(1, DisplayWidth.of("e\u0301"), "a combining accent takes no column");
    assertEquals(0, DisplayWidth.of("\u200d"), "zero-width joiner");
    assertEquals(0, DisplayWidth.of("\ufe0f"), "a variation selector");
    assertEquals(1, DisplayWidth.of("Ω"));
    assertEquals(2, DisplayWidth.of("𠀀"), "CJK extension B, outside the BMP");
  }

  @Test
  void cutKeepsWithinTheColumnsAndEndsWithAnEllipsis() {
    assertEquals("日本…", DisplayWidth.cut("日本語日本語", 5));
    assertEquals("日本…", DisplayWidth.cut("日本語日本語", 6), "a wide character never crosses");
    assertEquals("abcd…", DisplayWidth.cut("abcdefgh", 5));
    assertEquals("日本", DisplayWidth.cut("日本", 4), "what fits is not cut");
    for (int max = 1; max < 12; max++) {
      assertTrue(DisplayWidth.of(DisplayWidth.cut("😀a日b😀😀c", max)) <= max, "max " + max);
    }
  }

  @Test
  void tableColumnsLineUpWithWideText() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    TableSink table = new TableSink(out, null);
    List<ColumnSpec> columns =
        List.of(
            new ColumnSpec("ks", "t", "name", NativeType.TEXT),
            new ColumnSpec("ks", "t", "n", NativeType.INT));
    List<String[]> rows =
        List.of(
            new String[] {"abc", "1"},
            new String[] {"日本語", "2"},
            new String[] {"😀😀x", "3"},
            new String[] {"e\u0301te\u0301", "4"});
    table.print("", columns, rows);
    List<String> lines = bytes.toString(StandardCharsets.UTF_8).lines().toList();
    // the title, the header, the rule, then the rows: the last column starts at the same column
    int start = -1;
    for (String line : lines.subList(1, lines.size())) {
      int cell = line.lastIndexOf(' ') + 1;
      int column = DisplayWidth.of(line.substring(0, cell));
      if (start < 0) {
        start = column;
      }
      assertEquals(start, column, line);
    }
    assertEquals(8, start, "the widest name is 6 columns, then the two-space gap");
  }
}
