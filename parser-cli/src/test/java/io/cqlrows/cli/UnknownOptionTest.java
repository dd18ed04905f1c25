package io.cqlrows.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** An option no command knows is called unknown, with the closest known one when it is near. */
class UnknownOptionTest {
  private static final List<String> KNOWN =
      List.of("--format", "--host", "--port", "--password-env", "--page-size", "--quiet");

  @Test
  void aSlipOfTheKeyboardIsMatchedToTheOptionMeant() {
    assertEquals("--format", Usage.closest("--formt", KNOWN)); // a letter left out
    assertEquals("--format", Usage.closest("--fromat", KNOWN)); // two letters swapped
    assertEquals("--format", Usage.closest("--FORMAT", KNOWN)); // case
    assertEquals("--password-env", Usage.closest("--pasword-env", KNOWN));
    assertEquals("--page-size", Usage.closest("--pagesize", KNOWN));
    assertEquals("--host", Usage.closest("--hots", KNOWN));
  }

  @Test
  void nothingIsSuggestedForAWordThatIsNotNearAnyOption() {
    assertNull(Usage.closest("--bogus", KNOWN));
    assertNull(Usage.closest("--verbose", KNOWN));
    assertNull(Usage.closest("--" + "x".repeat(10_000), KNOWN));
  }

  @Test
  void distanceCountsEditsAndSwaps() {
    assertEquals(0, Usage.distance("abc", "abc"));
    assertEquals(1, Usage.distance("abc", "acb"));
    assertEquals(1, Usage.distance("abc", "ab"));
    assertEquals(1, Usage.distance("abc", "abd"));
    assertEquals(3, Usage.distance("", "abc"));
  }

  @Test
  void queryNamesTheUnknownOptionInsteadOfAskingForItsValue() {
    Usage.Mistake bogus =
        assertThrows(
            Usage.Mistake.class,
            () -> QueryOptions.parse(new String[] {"query", "--bogus"}, Map.of()));
    assertEquals("--bogus", bogus.unknownOption);
    assertNull(bogus.suggestion);

    Usage.Mistake typo =
        assertThrows(
            Usage.Mistake.class,
            () ->
                QueryOptions.parse(
                    new String[] {"query", "--formatt", "jsonl", "SELECT 1"}, Map.of()));
    assertEquals("--formatt", typo.unknownOption);
    assertEquals("--format", typo.suggestion);
  }

  @Test
  void replayStatsAndDigestNameTheUnknownOptionToo() {
    for (String command : List.of("replay", "stats", "digest")) {
      Usage.Mistake bogus =
          assertThrows(
              Usage.Mistake.class,
              () -> CliOptions.parse(new String[] {command, "--bogus", "capture.bin"}),
              command);
      assertEquals("--bogus", bogus.unknownOption, command);
      Usage.Mistake last =
          assertThrows(
              Usage.Mistake.class,
              () -> CliOptions.parse(new String[] {command, "capture.bin", "--bogus"}),
              command);
      assertEquals("--bogus", last.unknownOption, "an unknown last option, " + command);
      Usage.Mistake typo =
          assertThrows(
              Usage.Mistake.class,
              () -> CliOptions.parse(new String[] {command, "--limt", "3", "capture.bin"}),
              command);
      assertEquals("--limit", typo.suggestion, command);
    }
    Usage.Mistake noValue =
        assertThrows(
            Usage.Mistake.class, () -> CliOptions.parse(new String[] {"replay", "x", "--limit"}));
    assertNull(noValue.unknownOption, "a known option without its value is another mistake");
  }

  @Test
  void theCommandLineExitsWithStatus2AndPrintsTheSuggestion() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        CqlRowsCli.run(
            new String[] {"replay", "--colums", "a", "capture.bin"},
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(2, status);
    assertEquals(0, out.size(), "nothing on stdout");
    String first = err.toString(StandardCharsets.UTF_8).lines().findFirst().orElse("");
    assertTrue(first.contains("--colums") && first.contains("--columns"), first);
  }
}
