//! Splitting a problem at instants where nothing is alive across: the parts are independent.

use crate::item::Item;

/// Groups of item indices whose lifetimes chain together; no buffer of one group is alive
/// at the same time as a buffer of another, so each group can be planned on its own and the
/// arena is the largest of theirs. Groups are ordered by time, members by index.
pub(crate) fn independent_groups(items: &[Item]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| (items[i].lower, i));
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut reach = 0u64;
    for i in order {
        let item = &items[i];
        match groups.last_mut() {
            Some(group) if item.lower < reach => {
                group.push(i);
                reach = reach.max(item.upper);
            }
            _ => {
                groups.push(vec![i]);
                reach = item.upper;
            }
        }
    }
    for group in &mut groups {
        group.sort_unstable();
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(lower: u64, upper: u64) -> Item {
        Item::free(1, lower, upper)
    }

    #[test]
    fn splits_where_nothing_crosses() {
        let items = [item(0, 2), item(1, 3), item(3, 4), item(5, 9), item(6, 7)];
        assert_eq!(
            independent_groups(&items),
            vec![vec![0, 1], vec![2], vec![3, 4]]
        );
    }

    #[test]
    fn a_long_buffer_joins_everything_it_spans() {
        let items = [item(2, 3), item(0, 10), item(5, 6)];
        assert_eq!(independent_groups(&items), vec![vec![0, 1, 2]]);
    }
}
