package io.cqlrows.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Statements end at a semicolon outside strings, names, $$ blocks and comments. */
class StatementSplitterTest {
  private static List<String> split(String... lines) {
    StatementSplitter s = new StatementSplitter();
    List<String> out = new ArrayList<>();
    for (String line : lines) {
      out.addAll(s.add(line));
    }
    return out;
  }

  @Test
  void aSemicolonEndsAStatementThatMaySpanLines() {
    assertEquals(List.of("SELECT 1", "SELECT 2"), split("SELECT 1; SELECT 2;"));
    assertEquals(
        List.of("SELECT *\nFROM t\nWHERE k = 1"), split("SELECT *", "FROM t", "WHERE k = 1;"));
    assertEquals(List.of(), split("SELECT 1"), "no semicolon yet");
    assertEquals(List.of(), split(";", " ; "), "empty statements are skipped");
  }

  @Test
  void semicolonsInsideQuotesBlocksAndCommentsDoNotEndIt() {
    assertEquals(
        List.of("INSERT INTO t (a) VALUES ('x;y''z;')"),
        split("INSERT INTO t (a) VALUES ('x;y''z;');"));
    assertEquals(List.of("SELECT \"a;b\" FROM t"), split("SELECT \"a;b\" FROM t;"));
    assertEquals(
        List.of("CREATE FUNCTION f() RETURNS int LANGUAGE java AS $$ return 1; $$"),
        split("CREATE FUNCTION f() RETURNS int LANGUAGE java AS $$ return 1; $$;"));
    assertEquals(List.of("SELECT 1"), split("SELECT 1 -- not; this", ";"));
    assertEquals(List.of("SELECT \n2"), split("SELECT // a; comment", "2;"));
    assertEquals(List.of("SELECT  3"), split("SELECT /* a; multi", "line; */ 3;"));
    assertEquals(List.of("SELECT 'a\nb;c'"), split("SELECT 'a", "b;c';"), "a string over lines");
  }

  @Test
  void whatIsLeftIsKeptUntilAsked() {
    StatementSplitter s = new StatementSplitter();
    assertFalse(s.inStatement());
    assertEquals(List.of(), s.add("SELECT 'open"));
    assertTrue(s.inStatement());
    assertEquals("SELECT 'open", s.rest());
    assertFalse(s.inStatement(), "rest() forgets it");
    assertEquals(List.of("SELECT 1"), s.add("SELECT 1;"), "and the quote state with it");
  }

  @Test
  void aStatementWithoutEndIsBounded() {
    StatementSplitter s = new StatementSplitter();
    String line = "x".repeat(1 << 20);
    assertThrows(
        IllegalArgumentException.class,
        () -> {
          for (int i = 0; i < 20; i++) {
            s.add(line);
          }
        });
    assertFalse(s.inStatement(), "the statement is dropped");
  }
}
