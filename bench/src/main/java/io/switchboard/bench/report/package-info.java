@NullMarked
package io.switchboard.bench.report;

import org.jspecify.annotations.NullMarked;
