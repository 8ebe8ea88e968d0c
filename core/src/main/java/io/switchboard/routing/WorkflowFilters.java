package io.switchboard.routing;

import io.switchboard.selector.Selector;
import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * A workflow's filters, immutable, with each filter's expression parsed once: {@link
 * Workflow#filterFor} runs for every contact routed by the workflow and tries up to {@value
 * Workflow#MAX_FILTERS} of them, so parsing their texts there cost more than the routing itself
 * ({@code docs/benchmarks.md}, "Routing at scale"). Equal to any list of the same filters.
 */
final class WorkflowFilters extends AbstractList<WorkflowFilter> implements RandomAccess {

  private final List<WorkflowFilter> filters;
  private final Selector[] selectors;

  /** {@code filters}, whose expressions are valid selectors (checked by the caller). */
  WorkflowFilters(List<WorkflowFilter> filters) {
    this.filters = List.copyOf(filters);
    this.selectors = new Selector[this.filters.size()];
    for (int i = 0; i < selectors.length; i++) {
      selectors[i] = Selector.parse(this.filters.get(i).expression());
    }
  }

  /** The parsed expression of filter {@code index}. */
  Selector selector(int index) {
    return selectors[index];
  }

  @Override
  public WorkflowFilter get(int index) {
    return filters.get(index);
  }

  @Override
  public int size() {
    return filters.size();
  }
}
