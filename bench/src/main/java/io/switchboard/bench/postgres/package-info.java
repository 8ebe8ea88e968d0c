@NullMarked
package io.switchboard.bench.postgres;

import org.jspecify.annotations.NullMarked;
