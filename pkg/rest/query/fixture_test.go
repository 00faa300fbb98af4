package query

import "github.com/labelbase/labelbase/pkg/rest/schema"

// fixture is a schema cache without a database: the app's catalogue
// tables plus a table with json, range and tsvector columns and a pair of
// foreign keys to the same table, for disambiguation.
func fixture() *schema.Cache {
	c := &schema.Cache{Schemas: []string{"public"}, Tables: map[schema.QI]*schema.Table{}, Funcs: map[schema.QI][]*schema.Func{}}
	col := func(name, typ, base, cat string) *schema.Column {
		return &schema.Column{Name: name, Type: typ, Base: base, Category: cat, Nullable: true}
	}
	add := func(name string, pk []string, cols ...*schema.Column) *schema.Table {
		t := schema.NewTable("public", name, "r", cols)
		t.PK = pk
		c.Tables[t.QI()] = t
		return t
	}
	labels := add("labels", []string{"id"},
		col("id", "bigint", "int8", "N"), col("label_name", "text", "text", "S"), col("label_url", "text", "text", "S"),
		col("tags", "text[]", "_text", "A"), col("data", "jsonb", "jsonb", "U"), col("created_at", "timestamp with time zone", "timestamptz", "D"))
	releases := add("releases", []string{"id"},
		col("id", "bigint", "int8", "N"), col("label_id", "bigint", "int8", "N"), col("title", "text", "text", "S"),
		col("span", "int4range", "int4range", "R"), col("doc", "tsvector", "tsvector", "U"), col("meta", "json", "json", "U"))
	people := add("people", []string{"id"}, col("id", "integer", "int4", "N"), col("name", "character varying(80)", "varchar", "S"))
	messages := add("messages", []string{"id"}, col("id", "integer", "int4", "N"), col("body", "text", "text", "S"),
		col("sender_id", "integer", "int4", "N"), col("receiver_id", "integer", "int4", "N"))
	fk := func(name string, from *schema.Table, fcols []string, to *schema.Table, tcols []string) {
		k := &schema.FK{Name: name, From: from.QI(), FromCols: fcols, To: to.QI(), ToCols: tcols}
		from.FKs = append(from.FKs, k)
		to.Refs = append(to.Refs, k)
	}
	fk("releases_label_id_fkey", releases, []string{"label_id"}, labels, []string{"id"})
	fk("messages_sender_id_fkey", messages, []string{"sender_id"}, people, []string{"id"})
	fk("messages_receiver_id_fkey", messages, []string{"receiver_id"}, people, []string{"id"})
	// profiles is one-to-one with people; tags and label_tags are
	// many-to-many with labels through label_tags.
	profiles := add("profiles", []string{"id"}, col("id", "integer", "int4", "N"), col("person_id", "integer", "int4", "N"), col("bio", "text", "text", "S"))
	profiles.Uniques = [][]string{{"id"}, {"person_id"}}
	fk("profiles_person_id_fkey", profiles, []string{"person_id"}, people, []string{"id"})
	tags := add("tags", []string{"id"}, col("id", "integer", "int4", "N"), col("name", "text", "text", "S"))
	lt := add("label_tags", []string{"label_id", "tag_id"}, col("label_id", "bigint", "int8", "N"), col("tag_id", "integer", "int4", "N"))
	fk("label_tags_label_id_fkey", lt, []string{"label_id"}, labels, []string{"id"})
	fk("label_tags_tag_id_fkey", lt, []string{"tag_id"}, tags, []string{"id"})
	c.Link()
	return c
}
