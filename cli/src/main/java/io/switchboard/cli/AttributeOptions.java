package io.switchboard.cli;

import io.switchboard.queue.AttributeValue;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/** The attribute flags {@code send} and {@code update} share: strings, numbers, string lists. */
final class AttributeOptions {

  @Option(
      names = {"-a", "--attr"},
      paramLabel = "NAME=TEXT",
      description = "string attribute")
  Map<String, String> strings = new LinkedHashMap<>();

  @Option(
      names = {"-n", "--num"},
      paramLabel = "NAME=NUMBER",
      description = "number attribute")
  Map<String, String> numbers = new LinkedHashMap<>();

  @Option(
      names = {"-l", "--list"},
      paramLabel = "NAME=A,B",
      description = "string-list attribute (e.g. skills)")
  Map<String, String> lists = new LinkedHashMap<>();

  boolean any() {
    return !strings.isEmpty() || !numbers.isEmpty() || !lists.isEmpty();
  }

  Map<String, AttributeValue> values() {
    Map<String, AttributeValue> out = new LinkedHashMap<>();
    strings.forEach((k, v) -> out.put(k, AttributeValue.string(v)));
    numbers.forEach((k, v) -> out.put(k, AttributeValue.number(v)));
    lists.forEach((k, v) -> out.put(k, AttributeValue.stringList(List.of(v.split(",")))));
    return out;
  }
}
