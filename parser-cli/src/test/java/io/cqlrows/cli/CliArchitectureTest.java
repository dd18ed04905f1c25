package io.cqlrows.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import io.cqlrows.testing.Architecture;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The command line's shape: no package cycles, one public entry point, listed in the API page. */
class CliArchitectureTest {
  private static JavaClasses cli;

  @BeforeAll
  static void importCli() {
    cli = Architecture.mainClasses("io.cqlrows.cli");
  }

  @Test
  void importsTheWholeModule() {
    assertTrue(cli.contain(CqlRowsCli.class.getName()));
  }

  @Test
  void packagesAreFreeOfCycles() {
    Architecture.noPackageCycles().check(cli);
  }

  @Test
  void everyPublicTypeIsListedInTheApiPage() {
    Set<String> listed = Architecture.listedTypes();
    assertEquals(Set.of(), Architecture.unlisted(cli, listed), "public, not in docs/api.md");
    assertEquals(
        Set.of(),
        Architecture.staleListings(cli, listed, "io.cqlrows.cli"),
        "in docs/api.md, not a public top-level type");
  }
}
