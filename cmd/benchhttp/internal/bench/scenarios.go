package bench

import "fmt"

// scenarios are the requests measured: the shapes issue 9 names — a
// primary-key read as anon and as a member under RLS, a 50-row list, a
// 20-row page, an insert, the listened upsert — and every call the app
// makes (SPEC §7), as the app makes them.
func scenarios(fx *fixture) []*scenario {
	rpc := func(name, fn, body string) *scenario {
		return &scenario{name: "rpc " + name, member: true, method: "POST", path: "/rest/v1/rpc/" + fn, body: body, status: 200}
	}
	u := fx.user
	return []*scenario{
		{name: "PK read, anon", method: "GET", path: "/rest/v1/bench_items?select=id,name,payload&id=eq.4242", status: 200},
		{name: "PK read, member (RLS)", member: true, method: "GET", path: fmt.Sprintf("/rest/v1/labels?select=id,label_name,label_url,tags&id=eq.%d", fx.label), status: 200},
		{name: "50-row list", member: true, method: "GET", path: "/rest/v1/releases?select=id,title,artist,release_date&order=id&limit=50", status: 200},
		{name: "20-row page with count", member: true, method: "GET", path: "/rest/v1/labels?select=id,label_name&order=label_name&offset=20&limit=20", prefer: "count=exact", status: 206},
		{name: "insert", member: true, method: "POST", path: "/rest/v1/labels_to_add", body: `{"label_url":"https://bench-submit.bandcamp.com"}`, status: 201},
		{name: "listened upsert", member: true, method: "POST", path: "/rest/v1/user_listened_releases?on_conflict=user_id,release_id",
			body: fmt.Sprintf(`{"user_id":%q,"release_id":%d}`, u, fx.release), prefer: "resolution=merge-duplicates", status: 0},
		rpc("get_latest_releases", "get_latest_releases", fmt.Sprintf(`{"user_id":%q,"page_size":9,"page":1}`, u)),
		rpc("get_random_releases", "get_random_releases", fmt.Sprintf(`{"user_id":%q,"num_releases":9,"time_range_days":90}`, u)),
		rpc("get_followed_labels", "get_followed_labels", fmt.Sprintf(`{"user_id_param":%q,"page_number":1,"items_per_page":20}`, u)),
		rpc("get_unfollowed_labels", "get_unfollowed_labels", fmt.Sprintf(`{"user_id_param":%q,"page_number":1,"items_per_page":20}`, u)),
		rpc("count_followed_labels", "count_followed_labels", fmt.Sprintf(`{"user_id_param":%q}`, u)),
		rpc("count_unfollowed_labels", "count_unfollowed_labels", fmt.Sprintf(`{"user_id_param":%q}`, u)),
		rpc("get_filtered_labels_by_listen_status", "get_filtered_labels_by_listen_status",
			fmt.Sprintf(`{"user_id_param":%q,"filter_type":"unchecked","page_number":1,"items_per_page":20}`, u)),
		rpc("count_filtered_labels_by_listen_status", "count_filtered_labels_by_listen_status", fmt.Sprintf(`{"user_id_param":%q,"filter_type":"unchecked"}`, u)),
		rpc("get_all_filtered_labels_by_listen_status", "get_all_filtered_labels_by_listen_status", fmt.Sprintf(`{"user_id_param":%q,"filter_type":"all"}`, u)),
		rpc("get_latest_releases_per_label", "get_latest_releases_per_label", fmt.Sprintf(`{"p_label_ids":[%d],"p_limit":5}`, fx.label)),
		{name: "rpc validate_invite_code (anon)", method: "POST", path: "/rest/v1/rpc/validate_invite_code", body: `{"code_param":"nope"}`, status: 200},
	}
}
