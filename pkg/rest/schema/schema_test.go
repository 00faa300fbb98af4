package schema

import "testing"

func TestClosest(t *testing.T) {
	cands := []string{"labels", "releases", "user_follow_labels", "user_listened_releases", "labels_to_add"}
	for _, c := range []struct{ in, want string }{
		{"label", "labels"}, {"relases", "releases"}, {"user_follow_label", "user_follow_labels"},
		{"zzzzzz", ""}, {"labels", ""}, {"Labels_To_Ad", "labels_to_add"},
	} {
		if got := Closest(c.in, cands); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
